import { describe, expect, it } from 'vitest';
import { analyzeRun } from '../../src/model/analysis.js';
import { allCharts } from '../../src/report/charts.js';
import { loadRun, loadTimeseries } from '../fixtures/index.js';

describe('allCharts', () => {
  it('every chart in page order; the same input gives the same SVGs', () => {
    const ts = loadTimeseries('run-a.timeseries');
    const run = loadRun('run-a');
    const a = analyzeRun(run);
    const charts = allCharts(run, a, ts);
    expect(charts.map((c) => c.id)).toEqual([
      'latency-vs-load',
      'delivery-vs-load',
      'cpu-vs-deliveries',
      'memory-vs-connections',
      'timeline',
      'latency-histogram',
      'resources',
    ]);
    expect(charts.map((c) => c.svg)).toEqual(allCharts(run, a, ts).map((c) => c.svg));
  });
});
