import { describe, expect, it } from 'vitest';
import { deliveryVsLoadChart, latencyVsLoadChart } from '../../../src/report/charts/vs-load.js';
import { makeRun, makeStep } from '../../fixtures/index.js';

const labels = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);

describe('latencyVsLoadChart', () => {
  it('a one-step run gets a load axis from zero, not 0.4–1.6', () => {
    for (const scenario of ['broadcast-public', 'mixed']) {
      const svg = latencyVsLoadChart(makeRun(scenario, [makeStep(1)])).svg!;
      expect(labels(svg), scenario).toContain('0');
      expect(
        labels(svg).some((l) => /^(0\.4|1\.6|0\.6|1\.4)$/.test(l)),
        scenario,
      ).toBe(false);
    }
  });

  it('no latency measured: no chart, and the reason', () => {
    const run = makeRun('broadcast-public', [
      makeStep(0, { latency_ms: { p50: null, p95: null, p99: null } }),
    ]);
    expect(latencyVsLoadChart(run)).toMatchObject({
      svg: null,
      caption: 'No latency was measured.',
    });
  });
});

describe('deliveryVsLoadChart', () => {
  it('the SLO line drawn; no expected message: no chart', () => {
    const run = makeRun('broadcast-public', [makeStep(0), makeStep(1)]);
    expect(labels(deliveryVsLoadChart(run).svg!)).toContain('SLO 100%');
    const none = makeRun('broadcast-public', [makeStep(0, { delivery_rate: null })]);
    expect(deliveryVsLoadChart(none).svg).toBeNull();
  });
});
