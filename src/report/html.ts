/**
 * report.html: one self-contained page — inline CSS, inline SVG charts
 * rendered in Node, no script, no font or image fetched — so it opens from a CI artefact
 * or an e-mail the same as from disk. The tables are summary.md's, from the same builder.
 *
 * Notes come right after the header: seeds 000 and 001 are reports whose headline hid
 * dropped iterations and mostly-error responses; here the caveats are read first.
 */
import type { AnalysisOptions } from '../model/analysis.js';
import { allCharts } from './charts.js';
import type { Chart } from './charts/render.js';
import type { RunResult } from '../result/result.js';
import type { TimeseriesPoint } from '../result/timeseries-point.js';
import { buildSummary } from './summary.js';
import type { ReportTable } from './table.js';

export function escapeHtml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const VERDICT_CLASS = /^(stable|degraded|broken|generator-bound|inconclusive)\b/;

export function renderTableHtml(t: ReportTable): string {
  const align = (i: number) => t.align?.[i] ?? (i === 0 ? 'left' : 'right');
  const head = t.columns.map((c, i) => `<th class="${align(i)}">${escapeHtml(c)}</th>`).join('');
  const body = t.rows
    .map((r) => {
      const cells = r.map((c, i) => {
        // Colour verdict cells so a generator-bound or broken step cannot be mistaken for capacity.
        const v =
          t.columns[i] === 'verdict' || t.columns[i] === 'step verdict'
            ? VERDICT_CLASS.exec(c)?.[1]
            : undefined;
        const cls = [align(i), v ? `v-${v}` : ''].filter(Boolean).join(' ');
        return `<td class="${cls}">${escapeHtml(c)}</td>`;
      });
      return `<tr>${cells.join('')}</tr>`;
    })
    .join('\n');
  const notes = (t.notes ?? []).map((n) => `<p class="fit">${escapeHtml(n)}</p>`).join('\n');
  const title = t.title ? `<h3 id="${escapeHtml(t.id)}">${escapeHtml(t.title)}</h3>\n` : '';
  return `${title}<div class="scroll"><table data-table="${escapeHtml(t.id)}"><thead><tr>${head}</tr></thead>\n<tbody>\n${body}\n</tbody></table></div>\n${notes}`;
}

function renderChart(c: Chart): string {
  const body = c.svg ?? `<p class="empty">${escapeHtml(c.caption)}</p>`;
  const caption = c.svg ? `<figcaption>${escapeHtml(c.caption)}</figcaption>` : '';
  return `<figure class="chart" id="chart-${escapeHtml(c.id)}" data-chart="${escapeHtml(c.id)}" data-empty="${c.svg ? 'false' : 'true'}">\n<h3>${escapeHtml(c.title)}</h3>\n${body}\n${caption}\n</figure>`;
}

export const REPORT_CSS = `
:root { color-scheme: light; --fg:#1b1b1b; --muted:#5f6368; --line:#dadce0; --bg:#fff; --warn:#fff4e5; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); margin: 0 auto; padding: 24px; max-width: 1280px; }
h1 { font-size: 22px; margin: 0 0 12px; } h2 { font-size: 18px; margin: 32px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid var(--line); padding: 4px 8px; vertical-align: top; }
th { background: #f1f3f4; font-weight: 600; } .right { text-align: right; } .left { text-align: left; }
.scroll { overflow-x: auto; max-width: 100%; }
table.header td:first-child { color: var(--muted); white-space: nowrap; }
.v-stable { color: #1b5e20; } .v-degraded { color: #e65100; font-weight: 600; } .v-broken { color: #b71c1c; font-weight: 600; }
.v-generator-bound { color: #616161; font-style: italic; background: #f5f5f5; }
.v-inconclusive { color: #757575; font-style: italic; }
.notes { background: var(--warn); border: 1px solid #f0c36d; padding: 8px 16px; } .notes li { margin: 4px 0; }
.fit { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; margin: 6px 0; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 760px), 1fr)); gap: 16px; }
figure.chart { margin: 0; border: 1px solid var(--line); padding: 8px; } figure.chart svg { width: 100%; height: auto; }
figcaption, .empty { color: var(--muted); font-size: 13px; } nav a { margin-right: 12px; }
`;

export function renderReportHtml(
  result: RunResult,
  timeseries: TimeseriesPoint[],
  opts?: AnalysisOptions,
): string {
  const s = buildSummary(result, opts);
  const charts = allCharts(result, s.analysis, timeseries);
  const parts: string[] = [];
  parts.push(`<h1>${escapeHtml(s.title)}</h1>`);
  parts.push(
    `<table class="header"><tbody>${s.header.map(([k, v]) => `<tr><td>${escapeHtml(k)}</td><td>${escapeHtml(v)}</td></tr>`).join('')}</tbody></table>`,
  );
  parts.push(
    '<nav><a href="#notes">Notes</a><a href="#section">Tables</a><a href="#charts">Charts</a><a href="#capacity">Capacity</a><a href="#steps">All steps</a><a href="#errors">Errors</a></nav>',
  );
  parts.push('<h2 id="notes">Notes — read first</h2>');
  parts.push(
    s.notes.length
      ? `<ul class="notes">${s.notes.map((n) => `<li>${escapeHtml(n)}</li>`).join('\n')}</ul>`
      : '<p>None: every step was measured in full by a generator that kept up.</p>',
  );
  parts.push(`<h2 id="section">${escapeHtml(s.section?.title ?? 'Scenario tables')}</h2>`);
  if (s.section) for (const t of s.section.tables) parts.push(renderTableHtml(t));
  else parts.push('<p>No seed-002 table is registered for this scenario.</p>');
  parts.push('<h2 id="charts">Charts</h2>');
  parts.push(`<div class="charts">\n${charts.map(renderChart).join('\n')}\n</div>`);
  parts.push('<h2 id="capacity">Recommended capacity and configuration</h2>');
  parts.push(
    s.capacity
      ? renderTableHtml(s.capacity)
      : '<p>No dimension was measured: no driver took two or more values on steps that count.</p>',
  );
  if (s.advice) parts.push(renderTableHtml(s.advice));
  const fits = s.analysis.fits.map((f) => `<li class="fit">${escapeHtml(f.text)}</li>`).join('');
  if (fits) parts.push(`<h3>Fits</h3><ul>${fits}</ul>`);
  parts.push('<h2 id="steps">All steps</h2>');
  parts.push(renderTableHtml({ ...s.steps, title: '' }));
  parts.push('<h2 id="errors">Errors by reason (verbatim)</h2>');
  parts.push(s.errors ? renderTableHtml({ ...s.errors, title: '' }) : '<p>None.</p>');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(s.title)}</title>
<style>${REPORT_CSS}</style>
</head>
<body>
${parts.join('\n')}
</body>
</html>
`;
}
