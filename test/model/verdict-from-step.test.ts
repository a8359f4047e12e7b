import { describe, expect, it } from 'vitest';
import { rampMs, verdictInputFromStep } from '../../src/model/verdict-from-step.js';
import { makeStep } from '../fixtures/index.js';

describe('verdictInputFromStep', () => {
  it('the figures a recorded step holds, as the run judged them', () => {
    const step = makeStep(0, {
      params: { join_rate: 100 },
      connections: { failed: 2, scheduled_joins: 201 },
      messages: { lost: 3, unacked: 1, ack_errors: 0, ack_untracked: 0, acked: 9 },
      rates: { joins_per_s: 95 },
      extra: { presence_tracks_unanswered: 4 },
    });
    expect(verdictInputFromStep(step)).toMatchObject({
      delivery_rate: 1,
      latency_p95_ms: 8,
      connections_failed: 2,
      messages_lost: 3,
      join_rate: { measured_per_s: 95, offered_per_s: 100, ramp_ms: 2000 },
      acks: { unacked: 1, errors: 0, untracked: 0, acked: 9 },
      presence_tracks: { unanswered: 4, untracked: 0 },
      latency_by_kind: null,
    });
  });

  it('results written before acks, joins or presence tracks were recorded: null, not 0', () => {
    const input = verdictInputFromStep(makeStep(0));
    expect(input.acks).toBeNull();
    expect(input.join_rate).toBeNull();
    expect(input.presence_tracks).toBeNull();
  });
});

describe('rampMs', () => {
  it('first due to last due; one join has no ramp', () => {
    expect(rampMs(101, 50)).toBe(2000);
    expect(rampMs(1, 50)).toBe(0);
    expect(rampMs(10, 0)).toBe(0);
  });
});
