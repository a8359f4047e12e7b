/**
 * The summary printed on stdout at the end of a run: one line
 * per step in fixed columns, which latency they show, fits, capacity, a text chart of latency
 * against load and the notes; the CLI ends it with the headline sentence (report/headline).
 * Plain text, no colour codes, so it reads the same in a CI log or redirected to a file.
 */
import { analysisOptionsFromProfile, analyzeRun, type AnalysisOptions } from '../model/analysis.js';
import { fmtInt, fmtPct, fmtRate, fmtRatioPct, INCOMPLETE_LABEL } from '../model/format.js';
import { limitWords } from '../model/limit.js';
import { fewSamplesNote, percentileCell, targetUrlCell } from './cells.js';
import { collectNotes } from './notes.js';
import type { RunResult } from '../result/result.js';
import { renderTextTable, type Align } from './table.js';
import { latencyLoadChart } from './terminal-chart.js';

/** Width of the terminal chart when the output is not a terminal (a file, a CI log). */
export const DEFAULT_CHART_WIDTH = 100;

export interface TerminalOptions {
  /** Characters per line for the chart (the terminal's width). */
  width?: number;
}

/** The latency the table's p50/p95/p99 are, named as the live progress line names its own. */
export const LATENCY_LEGEND =
  'p50/p95/p99: first-receipt latency (scheduled send → first receipt of each message); the live line showed every receipt';

const SHORT_VERDICT: Record<string, string> = {
  stable: 'stable',
  degraded: 'DEGRADED',
  broken: 'BROKEN',
  'generator-bound': 'GENERATOR-BOUND (not capacity)',
  inconclusive: 'INCONCLUSIVE (nothing measured)',
};

const COLUMNS = [
  'step',
  'joined/target',
  'sent/s',
  'deliv/s',
  'delivery',
  'p50',
  'p95',
  'p99',
  'srv cpu',
  'srv mem',
  'gen cpu',
  'verdict',
];

/** One line per step in fixed columns; an incomplete step's number marked with `*`. */
function stepsTable(result: RunResult): string {
  return renderTextTable({
    id: 'terminal',
    title: '',
    columns: COLUMNS,
    // Every column right-aligned but the verdict.
    align: COLUMNS.map((_, i): Align => (i === COLUMNS.length - 1 ? 'left' : 'right')),
    rows: result.steps.map((s) => [
      String(s.index) + (s.complete === false ? '*' : ''),
      `${fmtInt(s.connections?.joined)}/${fmtInt(s.connections?.target)}`,
      fmtRate(s.rates?.sent_per_s).replace('/s', ''),
      fmtRate(s.rates?.delivered_per_s).replace('/s', ''),
      fmtRatioPct(s.delivery_rate),
      percentileCell(s.latency_ms, 'p50'),
      percentileCell(s.latency_ms, 'p95'),
      percentileCell(s.latency_ms, 'p99'),
      fmtPct(s.server?.cpu_pct),
      fmtPct(s.server?.mem_pct),
      fmtPct(s.generator?.cpu_pct, 0),
      SHORT_VERDICT[s.verdict] ?? s.verdict,
    ]),
  });
}

export function renderTerminalSummary(
  result: RunResult,
  opts?: AnalysisOptions,
  term: TerminalOptions = {},
): string {
  const analysis = analyzeRun(result, opts ?? analysisOptionsFromProfile(result.profile.resolved));
  const status = result.abort_reason ? `${result.status}: ${result.abort_reason}` : result.status;
  const lines = [
    `rtcap ${result.run_id} — ${result.profile.scenario} — ${status} — ${targetUrlCell(result.target)}`,
  ];
  lines.push(stepsTable(result));
  lines.push(LATENCY_LEGEND);
  const few = fewSamplesNote(result.steps);
  if (few) lines.push(few);
  if (result.steps.some((s) => s.complete === false)) lines.push(`* ${INCOMPLETE_LABEL}`);
  for (const f of analysis.fits) if (f.fit) lines.push(`fit: ${f.text}`);
  for (const c of analysis.capacity)
    lines.push(`capacity: ${c.dimension} ${c.display} (${limitWords(c.limit, { remedy: false })})`);
  for (const a of analysis.advice) lines.push(`advice: ${a.setting} = ${a.display}`);
  const chart = latencyLoadChart(result, term.width ?? DEFAULT_CHART_WIDTH);
  if (chart) lines.push('', ...chart, '');
  // The samples note is printed under the table already.
  const notes = collectNotes(result, analysis).filter((n) => n !== few);
  if (notes.length) {
    lines.push(`notes (${notes.length}):`);
    for (const n of notes.slice(0, 5)) lines.push(`  - ${n}`);
    if (notes.length > 5) lines.push(`  … ${notes.length - 5} more in summary.md`);
  }
  return lines.join('\n') + '\n';
}
