import { describe, expect, it } from 'vitest';
import { analyzeRun } from '../../src/model/analysis.js';
import { allCharts } from '../../src/report/charts.js';
import { loadRun, loadTimeseries } from '../fixtures/index.js';

describe('allCharts', () => {
  it('each chart once, in page order; the same input gives the same SVGs', () => {
    const ts = loadTimeseries('run-a.timeseries');
    const run = loadRun('run-a');
    const a = analyzeRun(run);
    const charts = allCharts(run, a, ts);
    // Each chart once (html.test.ts checks every one lands on the page); the page opens on latency.
    const ids = charts.map((c) => c.id);
    expect(new Set(ids).size).toBe(7);
    expect([ids[0], ids.at(-1)]).toEqual(['latency-vs-load', 'resources']);
    expect(charts.map((c) => c.svg)).toEqual(allCharts(run, a, ts).map((c) => c.svg));
  });
});
