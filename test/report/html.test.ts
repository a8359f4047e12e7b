import { describe, expect, it } from 'vitest';
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
