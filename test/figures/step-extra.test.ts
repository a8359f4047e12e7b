/**
 * extraOf against collected data whose true counts are known (no sockets): result.extra's
 * further counts and, for a step of two kinds, each kind's own figures.
 */
import { describe, expect, it } from 'vitest';
import { extraOf } from '../../src/figures/step-extra.js';
import { measureStep } from '../../src/figures/step-measure.js';
import { kindStream } from '../../src/scenarios/types.js';
import { inputs, sends } from '../support/step-inputs.js';

function extraOfStep(presenceLateMs: number) {
  const args = inputs(
    sends(kindStream('broadcast', 0), 20, 100),
    sends(kindStream('presence', 0), 20, 100, presenceLateMs),
  );
  return extraOf(args, measureStep(args));
}

describe('extraOf', () => {
  it("holds the step's further counts: joins, members at the end, the drain, sends offered", () => {
    const extra = extraOfStep(0);
    expect(extra).toMatchObject({
      joined_in_step: 2,
      members_at_end: 2,
      reconnects: 0,
      unsent_sends: 0,
      ack_latency_ms: null,
      // The window's drain: from the steady end to the drain end.
      drain_ms: 1000,
      // The primary kind's (broadcast) sends due before the steady end.
      offered_sends_in_window: 20,
    });
    expect(extra).not.toHaveProperty('latency_scope');
  });

  it('gives a step of two kinds the figures of each, with its own offered ratio', () => {
    const kinds = extraOfStep(2500).kinds as Record<string, { offered_ratio: number | null }>;
    expect(Object.keys(kinds).sort()).toEqual(['broadcast', 'presence']);
    expect(kinds.broadcast.offered_ratio).toBe(1);
    expect(kinds.presence.offered_ratio).toBe(0.3);
  });
});
