import { describe, expect, it } from 'vitest';
import { mixedBase as base, mixedProfile as profile } from '../support/scenario-profiles.js';
import type { StepResult } from '../../src/result/result.js';
import type { StepContext } from '../../src/figures/step-context.js';
import { createHistogram, recordMs } from '../../src/measure/histogram.js';
import type { MessageFigures } from '../../src/measure/aggregate.js';
import { planMixed } from '../../src/scenarios/mixed.js';
import { mixedExtra } from '../../src/figures/extra-mixed.js';

function figures(sent: number, expected: number, received: number): MessageFigures {
  return {
    sent,
    sendFailed: 0,
    expected,
    received,
    excess: 0,
    lost: expected - received,
    notDeliveredConnectionDown: 0,
    messagesUnseen: 0,
    messagesOnlyElsewhere: 0,
    firstLatency: createHistogram(),
    firstLatencyFromActual: createHistogram(),
    fanoutSpan: createHistogram(),
    bySecond: new Map(),
  };
}

function kind(ms: number, f: MessageFigures) {
  const h = createHistogram();
  for (let i = 0; i < 10; i++) recordMs(h, ms);
  return { figures: f, deliveryHistogram: h };
}

describe('mixedExtra', () => {
  it("each component's latency and delivery, with the latest solo step's latency beside it", () => {
    const p = profile([{ ...base, components: ['postgres-changes'] }, { ...base }]);
    const soloStep = {
      params: { components: 'postgres-changes' },
      extra: {
        components: [
          {
            name: 'postgres-changes',
            latency_ms: { p50: 300, p95: 500, p99: 520 },
            solo_latency_ms: null,
            delivery_rate: 1,
            delivered_per_s: 24,
          },
        ],
      },
    } as unknown as StepResult;
    const ctx = {
      profile: p,
      plan: planMixed(p, 1),
      collected: [],
      window: { rampStart: 0, rampEnd: 0, steadyStart: 0, steadyEnd: 2000, drainEnd: 3000 },
      kinds: {
        broadcast: kind(2, figures(12, 36, 36)),
        presence: kind(3, figures(12, 36, 35)),
        changes: kind(1500, figures(4, 48, 48)),
      },
      previous: [soloStep],
    } as unknown as StepContext;
    const comps = mixedExtra(ctx).components;
    expect(comps.map((c) => c.name)).toEqual(['broadcast', 'presence', 'postgres-changes']);
    expect(comps[0]).toMatchObject({
      solo_latency_ms: null,
      delivery_rate: 1,
      delivered_per_s: 18,
      sent: 12,
      expected: 36,
      received: 36,
      lost: 0,
    });
    expect(comps[1]).toMatchObject({ delivery_rate: 0.972222, lost: 1 });
    expect(comps[2].solo_latency_ms).toEqual({ p50: 300, p95: 500, p99: 520 });
    expect((comps[2].latency_ms as { p50: number }).p50).toBeCloseTo(1500, -1);
  });
});
