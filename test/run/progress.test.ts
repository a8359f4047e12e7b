import { describe, expect, it } from 'vitest';
import type { TimeseriesPoint } from '../../src/result/timeseries-point.js';
import { Progress } from '../../src/run/progress.js';

function capture(): { stream: NodeJS.WriteStream; text: () => string } {
  let out = '';
  const stream = {
    isTTY: false,
    columns: 0,
    write: (s: string) => ((out += s), true),
  } as unknown as NodeJS.WriteStream;
  return { stream, text: () => out };
}

describe('Progress', () => {
  it('numbers a search step without a total (a search decides its steps as it goes)', () => {
    const { stream, text } = capture();
    new Progress(stream, true).update(
      { ...point(), step: 3 },
      {
        steps: 0,
        target: 10,
        elapsedInPhaseS: 1,
        phaseLengthS: 5,
      },
    );
    expect(text()).toMatch(/^step 3 steady 1\/5s ·/);
    const fixed = capture();
    new Progress(fixed.stream, true).update(
      { ...point(), step: 3 },
      {
        steps: 4,
        target: 10,
        elapsedInPhaseS: 1,
        phaseLengthS: 5,
      },
    );
    expect(fixed.text()).toMatch(/^step 3\/4 steady/);
  });

  it('names its latency: every receipt, not the first receipt the final table shows', () => {
    const { stream, text } = capture();
    const p = point();
    new Progress(stream, true).update(p, {
      steps: 1,
      target: 10,
      elapsedInPhaseS: 1,
      phaseLengthS: 5,
    });
    expect(text()).toContain('every-receipt p95 42 ms');
    expect(text()).not.toMatch(/· p95/);
  });
});

function point(): TimeseriesPoint {
  return {
    t: 0,
    step: 1,
    phase: 'steady',
    connections_open: 10,
    joined: 10,
    joins_per_s: 0,
    sent_per_s: 1,
    delivered_per_s: 10,
    sent_per_s_60s: 1,
    delivered_per_s_60s: 10,
    delivery_p50_ms: 3,
    delivery_p95_ms: 42,
    delivery_p99_ms: 50,
    errors: 0,
    disconnects: 0,
    server_cpu_pct: 5,
    server_rss_mb: 100,
    generator_cpu_pct: 10,
    generator_lag_p99_ms: 2,
  } as TimeseriesPoint;
}
