/**
 * report.html of a capacity table: one self-contained page (the run report's CSS, no script)
 * with all 12 docs/METHOD.md §7 rows and 4 §8 rows; each row's evidence links to its run's report
 * and charts.
 */
import type { CapacityFile, CapacityTableRow } from '../capacity/types.js';
import { rowLimitWords } from '../model/limit.js';
import { capacityHeader, configTableOf, rowEvidenceText, sourcesTableOf } from './capacity.js';
import type { RunResult } from '../result/result.js';
import { ROW_CHARTS_CSS, rowCharts, rowChartsHtml } from './capacity-charts.js';
import { escapeHtml, renderTableHtml, REPORT_CSS } from './html.js';

function evidenceCell(r: CapacityTableRow): string {
  const text = escapeHtml(rowEvidenceText(r));
  const fit = r.evidence?.fit ? `<div class="fit">${escapeHtml(r.evidence.fit)}</div>` : '';
  const link = r.evidence ? ` <a href="${escapeHtml(r.evidence.chart)}">charts</a>` : '';
  const notes = r.notes.map((n) => `<div class="note">${escapeHtml(n)}</div>`).join('');
  return `${text}${link}${fit}${notes}`;
}

/**
 * `runs`: each source's result by its `dir` as the table names it; with them the page opens with
 * one chart per docs/METHOD.md §7 row (report/capacity-charts), without them it is the tables
 * alone.
 */
export function renderCapacityHtml(
  f: CapacityFile,
  title = 'Capacity',
  runs: ReadonlyMap<string, RunResult> = new Map(),
): string {
  const charts =
    runs.size > 0
      ? `<h2 id="row-charts">One chart per row</h2>\n<p>Each row's steps against its driver: server memory or CPU where a fitted resource line bounds it, else first-receipt p95; dashed: the knee (first step not stable), the row's value, and the safe line or SLO. Colours are verdicts (green stable, orange degraded, red broken, grey generator-bound).</p>\n${rowChartsHtml(rowCharts(f.rows, runs, f.safe_lines))}\n`
      : '';
  const rows = f.rows
    .map((r) => {
      const cls = r.value === null ? ' class="v-broken"' : '';
      return `<tr data-row="${escapeHtml(r.id)}"><td class="right">${r.no}</td><td>${escapeHtml(r.dimension)}</td><td class="right"${cls}>${escapeHtml(r.display)}</td><td>${escapeHtml(rowLimitWords(r))}</td><td>${escapeHtml(r.rule_text)}</td><td>${evidenceCell(r)}</td></tr>`;
    })
    .join('\n');
  const table = `<div class="scroll"><table data-table="capacity"><thead><tr><th>#</th><th>Dimension</th><th>Recommended</th><th>Limiting factor</th><th>Rule</th><th>Evidence</th></tr></thead>\n<tbody>\n${rows}\n</tbody></table></div>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${REPORT_CSS} .note { color: var(--muted); font-size: 13px; margin-top: 4px; } ${runs.size > 0 ? ROW_CHARTS_CSS : ''}</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
${capacityHeader(f)
  .map((l) => `<p>${escapeHtml(l)}</p>`)
  .join('\n')}
${charts}<h2 id="capacity">Recommended capacity (seed 002 §7)</h2>
${table}
<h2 id="config">Configuration (seed 002 §8)</h2>
${renderTableHtml({ ...configTableOf(f), title: '' })}
<h2 id="runs">Runs</h2>
${renderTableHtml({ ...sourcesTableOf(f), title: '' })}
</body>
</html>
`;
}
