import { describe, expect, it } from 'vitest';
import { inconclusiveDecision, stableReason } from '../../src/model/verdict-measured.js';
import { healthyVerdictInput } from '../fixtures/index.js';

const slo = { p95_ms: 200, delivery_rate: 1 };
const nothing = { delivery_rate: null, latency_p95_ms: null, latency_p99_ms: null };

describe('inconclusiveDecision', () => {
  it('nothing measured, or traffic asked for and none sent: inconclusive', () => {
    expect(inconclusiveDecision(healthyVerdictInput(nothing))?.reasons).toEqual([
      'nothing measured: no delivery latency, no acknowledged send, no join',
    ]);
    const unsent = healthyVerdictInput({ traffic: { asked_per_s: 50, sent: 0 } });
    expect(inconclusiveDecision(unsent)?.verdict).toBe('inconclusive');
    expect(inconclusiveDecision(healthyVerdictInput({}))).toBeNull();
  });

  it('an acknowledged send or an answered join is a measurement', () => {
    const acked = healthyVerdictInput({
      ...nothing,
      acks: { unacked: 0, errors: 0, untracked: 0, acked: 1 },
    });
    expect(inconclusiveDecision(acked)).toBeNull();
    expect(
      inconclusiveDecision(healthyVerdictInput({ ...nothing, join_latency_p95_ms: 9 })),
    ).toBeNull();
  });
});

describe('stableReason', () => {
  it('delivery and latency; a join-only step its joins; a short ramp not judged', () => {
    expect(stableReason(healthyVerdictInput({}), slo)).toBe(
      'delivery 100%, p95 40 ms within SLO 200 ms',
    );
    const joinOnly = healthyVerdictInput({
      ...nothing,
      join_latency_p95_ms: 30,
      join_rate: { measured_per_s: 50, offered_per_s: 50, ramp_ms: 500 },
    });
    expect(stableReason(joinOnly, { ...slo, join_p95_ms: 100 })).toBe(
      'joins 50/s, join p95 30 ms within SLO 100 ms, join rate not judged (ramp 500 ms < 1,000 ms)',
    );
    expect(stableReason(healthyVerdictInput(nothing), slo)).toBe('no latency measured');
  });
});
