import { describe, expect, it } from 'vitest';
import { createHistogram, recordMs } from '../../src/measure/histogram.js';
import { latencyByKind, verdictInputs } from '../../src/figures/verdict-inputs.js';
import { fakeFigures } from '../support/step-context.js';

const classes = { server: 0, network: 0, generator: 0, protocol: 0 };
const base = {
  deliveryRate: 1,
  latency: { p95: 40, p99: 80 },
  connectionsTarget: 10,
  membersAtSteady: 10,
  joinedInStep: 0,
  failed: 0,
  disconnected: 0,
  errors: {},
  errorClasses: classes,
  generator: { cpu_pct: 20, event_loop_lag_p99_ms: 3, offered_ratio: 1 },
  joinLatencyP95Ms: 12,
  joinRate: { measured_per_s: 100, offered_per_s: 100, ramp_ms: 100 },
  acks: null,
};

describe('verdict inputs', () => {
  it('take the worst kind delivery and every kind losses', () => {
    const kinds = {
      broadcast: {
        figures: fakeFigures({ expected: 10, received: 10 }),
        deliveryHistogram: createHistogram(),
      },
      presence: {
        figures: fakeFigures({ expected: 10, received: 8, lost: 2 }),
        deliveryHistogram: createHistogram(),
      },
    };
    const v = verdictInputs({ ...base, kinds });
    expect(v.delivery_rate).toBe(0.8);
    expect(v.messages_lost).toBe(2);
  });

  it('carry each kind latency when the step carried several kinds, none for one kind', () => {
    const lat = (ms: number[]) => {
      const h = createHistogram();
      for (const x of ms) recordMs(h, x);
      return h;
    };
    const kinds = {
      broadcast: {
        figures: fakeFigures({
          firstLatency: lat(Array.from({ length: 100 }, (_, i) => 1000 + i * 10)),
        }),
        deliveryHistogram: createHistogram(),
      },
      presence: {
        figures: fakeFigures({ firstLatency: lat([5, 5, 5, 5]) }),
        deliveryHistogram: createHistogram(),
      },
    };
    const byKind = latencyByKind(kinds)!;
    expect(Object.keys(byKind)).toEqual(['broadcast', 'presence']);
    expect(byKind.broadcast.p95_ms!).toBeGreaterThanOrEqual(1940);
    expect(byKind.broadcast.p95_ms!).toBeLessThanOrEqual(1960);
    expect(byKind.presence.p95_ms!).toBeCloseTo(5, 1);
    expect(verdictInputs({ ...base, kinds }).latency_by_kind).toEqual(byKind);
    expect(latencyByKind({ broadcast: kinds.broadcast })).toBeNull();
  });

  it('count members missing at the steady start as failed connections', () => {
    expect(
      verdictInputs({ ...base, kinds: {}, membersAtSteady: 7, failed: 1 }).connections_failed,
    ).toBe(3);
    expect(
      verdictInputs({ ...base, kinds: {}, membersAtSteady: 9, failed: 4 }).connections_failed,
    ).toBe(4);
    expect(
      verdictInputs({ ...base, kinds: {}, membersAtSteady: 0, joinedInStep: 0 }).connections_joined,
    ).toBe(0);
    expect(
      verdictInputs({ ...base, kinds: {}, membersAtSteady: 3, joinedInStep: 5 }).connections_joined,
    ).toBe(5);
  });

  it('fall back to the primary delivery rate when no kind expected anything; carry acks only when asked', () => {
    const v = verdictInputs({
      ...base,
      kinds: {},
      deliveryRate: null,
      acks: { acked: 5, ackErrors: 1, unacked: 2, untracked: 0 },
    });
    expect(v.delivery_rate).toBeNull();
    expect(v.acks).toEqual({ unacked: 2, errors: 1, untracked: 0, acked: 5 });
    expect(verdictInputs({ ...base, kinds: {} }).acks).toBeNull();
  });
});
