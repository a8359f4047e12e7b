/**
 * measureStep against collected data whose true counts are known (no sockets): every figure of
 * the step gathered once, as the verdict, result.extra and the result read them.
 */
import { describe, expect, it } from 'vitest';
import { measureStep } from '../../src/figures/step-measure.js';
import { kindStream } from '../../src/scenarios/types.js';
import { inputs, sends } from '../support/step-inputs.js';

const broadcasts = () => sends(kindStream('broadcast', 0), 20, 100);

describe('measureStep', () => {
  it('counts every send of both kinds, the members and the joins of the step', () => {
    const m = measureStep(inputs(broadcasts(), sends(kindStream('presence', 0), 20, 100)));
    expect(m.allSends).toHaveLength(2);
    expect(Object.keys(m.kinds).sort()).toEqual(['broadcast', 'presence']);
    expect(m.figures).toBe(m.kinds.broadcast!.figures);
    expect(m.figures).toMatchObject({ sent: 20, expected: 20, received: 20, lost: 0 });
    expect(m.deliveryRate).toBe(1);
    expect(m.membersAtSteady).toBe(2);
    expect(m.joinedInStep).toBe(2);
    expect(m.scheduledJoins).toBe(2);
    expect(m.failed).toBe(0);
    expect(m.origin).toBeNull();
    expect(m.parts).toEqual({ broadcast: 1, presence: 1, joins: 1 });
  });

  it("gives each part of the load its own offered ratio: a late kind is behind, not the step's primary", () => {
    // 20 presence updates due over the window, each made 2.5 s late: 6 within the window + 1 s.
    const m = measureStep(inputs(broadcasts(), sends(kindStream('presence', 0), 20, 100, 2500)));
    expect(m.parts).toEqual({ broadcast: 1, presence: 0.3, joins: 1 });
    expect(m.generator.offered_ratio).toBe(0.3);
    expect(m.generator.offered_by_part).toEqual({ broadcast: 1, presence: 0.3, joins: 1 });
  });
});
