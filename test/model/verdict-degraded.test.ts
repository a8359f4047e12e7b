import { describe, expect, it } from 'vitest';
import { degradedReasons } from '../../src/model/verdict-degraded.js';
import type { VerdictSlo } from '../../src/model/verdict-input.js';
import { healthyVerdictInput } from '../fixtures/index.js';

const slo: VerdictSlo = { p95_ms: 200, delivery_rate: 1 };
const degraded = (o: Parameters<typeof healthyVerdictInput>[0], s = slo) =>
  degradedReasons(healthyVerdictInput(o), s);

describe('degradedReasons', () => {
  it('latency within the SLO: none', () => {
    expect(degraded({})).toEqual([]);
  });

  it('p95, and p99 only when the SLO sets it', () => {
    expect(degraded({ latency_p95_ms: 300, latency_p99_ms: 900 })).toEqual([
      'p95 300 ms > SLO 200 ms',
    ]);
    expect(degraded({ latency_p99_ms: 900 }, { ...slo, p99_ms: 500 })).toEqual([
      'p99 900 ms > SLO 500 ms',
    ]);
  });

  it('every kind of a step that carried several, named', () => {
    const latency_by_kind = {
      broadcast: { p95_ms: 40, p99_ms: 80 },
      presence: { p95_ms: 450, p99_ms: 500 },
    };
    expect(degraded({ latency_by_kind })).toEqual(['presence p95 450 ms > SLO 200 ms']);
  });

  it('join p95 over its SLO; a join rate under 90 % of the offered one on a ramp of 1 s or more', () => {
    expect(degraded({ join_latency_p95_ms: 900 }, { ...slo, join_p95_ms: 500 })).toEqual([
      'join p95 900 ms > SLO 500 ms',
    ]);
    const behind = { measured_per_s: 80, offered_per_s: 100, ramp_ms: 1000 };
    expect(degraded({ join_rate: behind })).toEqual([
      'joins 80/s < 90% of the 100/s offered: the server fell behind the join schedule',
    ]);
    expect(degraded({ join_rate: { ...behind, ramp_ms: 999 } })).toEqual([]);
  });
});
