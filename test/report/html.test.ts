import { describe, expect, it } from 'vitest';
import { analyzeRun } from '../../src/model/analysis.js';
import {
  allCharts,
  cpuVsDeliveriesChart,
  latencyHistogramChart,
  latencyVsLoadChart,
  memoryVsConnectionsChart,
  primaryDriver,
  timelineChart,
} from '../../src/report/charts.js';
import { escapeHtml, renderReportHtml } from '../../src/report/html.js';
import { loadRun, loadTimeseries, makeRun, makeStep } from '../fixtures/index.js';

describe('renderReportHtml', () => {
  const run = loadRun('run-a');
  const html = renderReportHtml(run, loadTimeseries('run-a.timeseries'));

  it('is one self-contained page: no script, no external reference', () => {
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<link\b/i);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//i);
    expect(html).not.toMatch(/@import/i);
    // Only references inside the page (SVG clip paths).
    expect(html.match(/url\([^)]*\)/g)?.every((u) => u.startsWith('url(#'))).toBe(true);
  });

  it('has every chart, each an inline SVG with drawn content', () => {
    const ids = [
      'latency-vs-load',
      'delivery-vs-load',
      'cpu-vs-deliveries',
      'memory-vs-connections',
      'timeline',
      'latency-histogram',
      'resources',
    ];
    for (const id of ids) {
      const m = new RegExp(
        `<figure class="chart" id="chart-${id}" data-chart="${id}" data-empty="false">([\\s\\S]*?)</figure>`,
      ).exec(html);
      expect(m, id).not.toBeNull();
      expect(m![1]).toMatch(/<svg [^>]*viewBox="0 0 \d+ \d+"/);
      expect((m![1].match(/<path /g) ?? []).length, id).toBeGreaterThan(5);
    }
  });

  it('carries the summary tables, the notes first, and colours verdicts', () => {
    expect(html.indexOf('id="notes"')).toBeLessThan(html.indexOf('id="section"'));
    expect(html).toContain('data-table="s1.2-deliveries"');
    expect(html).toContain('data-table="capacity"');
    expect(html).toContain('data-table="steps"');
    expect(html).toContain(
      '<td class="left v-generator-bound">generator-bound — not server capacity</td>',
    );
    expect(html).toContain('CPU ≈ 3.0 % + 1.80 pp × deliveries/s ÷ 1,000 (R² 1.00, 3 steps)');
  });

  it('escapes text from the result', () => {
    const r = makeRun('broadcast-public', [
      makeStep(0, {
        label: '<img src=x onerror=alert(1)>',
        errors: { '<b>x</b>': 1 },
        verdict: 'broken',
      }),
    ]);
    const h = renderReportHtml(r, []);
    expect(h).not.toContain('<img src=x');
    expect(h).toContain('&lt;b&gt;x&lt;/b&gt;');
    expect(escapeHtml(`a&"'<>`)).toBe('a&amp;&quot;&#39;&lt;&gt;');
  });

  it('says why a chart is missing instead of drawing an empty one', () => {
    const h = renderReportHtml(loadRun('seed-002-s1.2-deliveries'), []);
    expect(h).toMatch(
      /data-chart="timeline" data-empty="true">[\s\S]*?No timeseries\.ndjson points\./,
    );
    expect(h).toMatch(
      /data-chart="memory-vs-connections" data-empty="true">[\s\S]*?No step had both connections and server memory measured\./,
    );
    expect(h).toMatch(/data-chart="cpu-vs-deliveries" data-empty="false"/);
  });
});

describe('charts', () => {
  it('the load axis is the §7 driver that varied most', () => {
    expect(primaryDriver(loadRun('seed-002-s1.2-deliveries'))).toEqual({
      metric: 'delivered_per_s',
      label: 'deliveries/s',
    });
    expect(primaryDriver(loadRun('seed-002-s4-join-rate'))).toEqual({
      metric: 'join_rate',
      label: 'Connection / channel join rate',
    });
    // One step: the first figure measured, not the step number.
    expect(primaryDriver(makeRun('broadcast-public', [makeStep(0)]))).toEqual({
      metric: 'connections',
      label: 'concurrent connections',
    });
    expect(primaryDriver(makeRun('mixed', [makeStep(0)]))).toEqual({ metric: null, label: 'step' });
  });

  it('a one-step run gets a load axis from zero, not 0.4–1.6', () => {
    for (const scenario of ['broadcast-public', 'mixed']) {
      const svg = latencyVsLoadChart(makeRun(scenario, [makeStep(1)])).svg!;
      const labels = [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
      expect(labels, scenario).toContain('0');
      expect(
        labels.some((l) => /^(0\.4|1\.6|0\.6|1\.4)$/.test(l)),
        scenario,
      ).toBe(false);
    }
  });

  it('fit charts carry the fit text and the safe line', () => {
    const run = loadRun('seed-002-s1.1-connections');
    const a = analyzeRun(run);
    const mem = memoryVsConnectionsChart(run, a);
    expect(mem.svg).toContain('safe 85 %');
    expect(mem.caption).toContain('Memory ≈ 34.0 % + 2.40 pp × connections ÷ 1,000');
    const cpu = cpuVsDeliveriesChart(
      loadRun('seed-002-s1.2-deliveries'),
      analyzeRun(loadRun('seed-002-s1.2-deliveries')),
    );
    expect(cpu.svg).toContain('safe 70 %');
  });

  it('the histogram has one bar series per step over the bucket labels', () => {
    const h = latencyHistogramChart(loadRun('run-a'));
    expect(h.svg).toContain('≤ 1 ms');
    expect(h.svg).toContain('&gt; 60 s');
    expect(h.svg).toContain('step 4 (generator-bound)');
    expect(latencyHistogramChart(loadRun('seed-002-s1.2-deliveries')).svg).toBeNull();
  });

  it('rendering is pure: the same input gives the same SVG', () => {
    const ts = loadTimeseries('run-a.timeseries');
    expect(timelineChart(ts).svg).toBe(timelineChart(ts).svg);
    const run = loadRun('run-a');
    const a = analyzeRun(run);
    expect(allCharts(run, a, ts).map((c) => c.svg)).toEqual(
      allCharts(run, a, ts).map((c) => c.svg),
    );
  });
});
