import { describe, expect, it } from 'vitest';
import { latencyLoadChart, niceCeil } from '../../src/report/terminal-chart.js';
import { loadRun, makeRun, makeStep } from '../fixtures/index.js';

describe('latencyLoadChart', () => {
  it('takes the width it is given, every line within it', () => {
    for (const width of [60, 100, 180]) {
      const lines = latencyLoadChart(loadRun('seed-002-s1.2-deliveries'), width)!;
      const axis = lines.find((l) => l.includes('└'))!;
      expect(axis.length, `width ${width}`).toBe(width);
      for (const l of lines.slice(0, -1))
        expect(l.length, l).toBeLessThanOrEqual(width + 'deliveries/s'.length + 2);
    }
  });

  it('one marker per step by verdict, the SLO as a row, load from zero', () => {
    const lines = latencyLoadChart(loadRun('seed-002-s1.2-deliveries'), 100)!;
    const body = lines.slice(1, -3).join('\n');
    expect(body.match(/●/g)?.length).toBe(4);
    expect(body.match(/▲/g)?.length).toBe(2);
    expect(lines.find((l) => l.includes('┄'))).toMatch(/^ SLO 200ms │┄+/);
    expect(lines.at(-2)).toMatch(/^ {11}0 .* 25,000 .* 50,000 {2}deliveries\/s$/);
  });

  it('a one-step run gets an axis from 0, with its point inside it', () => {
    const lines = latencyLoadChart(makeRun('broadcast-public', [makeStep(1)]), 80)!;
    expect(lines.at(-2)).toMatch(/^ {11}0 .*10,000 {2}deliveries\/s$/);
    expect(lines.join('\n').match(/●/g)?.length).toBe(2); // the point and the legend
  });

  it('an incomplete step has its own marker; nothing measured, no chart', () => {
    const lines = latencyLoadChart(loadRun('run-b'), 100)!;
    expect(lines.slice(1, -3).join('\n')).toContain('◌');
    expect(
      latencyLoadChart(
        makeRun('broadcast-public', [
          makeStep(1, { latency_ms: { p50: null, p95: null, p99: null } }),
        ]),
        80,
      ),
    ).toBeNull();
  });

  it('niceCeil rounds up to 1, 2, 2.5 or 5 × 10^k', () => {
    expect([1, 3, 7, 10, 11, 22, 9990, 29_970, 50_000, 51_081].map(niceCeil)).toEqual([
      1, 5, 10, 10, 20, 25, 10_000, 50_000, 50_000, 100_000,
    ]);
  });
});
