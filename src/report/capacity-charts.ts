/**
 * One small chart per docs/METHOD.md §7 row for the campaign's report.html: the steps of the run
 * the row rests on, its driver on x and what judged it on y — server memory % or CPU % where a
 * resource fit bounds the row, else first-receipt latency p95 — with the knee (the first step that
 * was not stable), the safe line (or the SLO) and the row's value marked, each linking to its run's
 * report. SVG by the run report's echarts SSR (report/charts/render). Pure: table and runs in,
 * SVG out.
 */
import type { CapacityTableRow } from '../capacity/types.js';
import { CAPACITY_DIMENSIONS, type CapacityDimension } from '../model/capacity-dimensions.js';
import { FIT_SPECS } from '../model/fit.js';
import { findKnee } from '../model/knee.js';
import { STEP_METRICS } from '../model/metrics.js';
import type { RunResult, StepResult } from '../result/result.js';
import { renderSvg } from './charts/render.js';
import { VERDICT_COLOURS } from './charts/steps.js';
import { escapeHtml } from './html.js';

export const ROW_CHART_WIDTH = 380;
export const ROW_CHART_HEIGHT = 230;

export interface RowChart {
  id: string;
  no: number;
  title: string;
  svg: string | null;
  caption: string;
  /** The run's report, or null when the row has no run. */
  href: string | null;
}

interface YAxis {
  name: string;
  of: (s: StepResult) => number | null;
  line: { value: number; label: string } | null;
}

/**
 * What judged the row: the fitted resource with its safe line, else — or when the runs did not
 * sample it — latency p95 with the SLO, else delivery % with its SLO.
 */
function yFor(
  dim: CapacityDimension,
  run: RunResult,
  safe: { cpu_pct: number; mem_pct: number },
): YAxis {
  const resource = dim.fit ? FIT_SPECS[dim.fit].resource : null;
  const choices: YAxis[] = [];
  if (resource === 'memory')
    choices.push({
      name: 'server memory %',
      of: (s) => STEP_METRICS.mem_pct(s),
      line: { value: safe.mem_pct, label: `${safe.mem_pct} %` },
    });
  if (resource === 'cpu')
    choices.push({
      name: 'server CPU %',
      of: (s) => STEP_METRICS.cpu_pct(s),
      line: { value: safe.cpu_pct, label: `${safe.cpu_pct} %` },
    });
  choices.push({
    name: 'p95 ms',
    of: (s) => s.latency_ms?.p95 ?? null,
    line: { value: run.slo.p95_ms, label: `SLO ${run.slo.p95_ms} ms` },
  });
  choices.push({
    name: 'p50 ms (p95 not measured)',
    of: (s) => s.latency_ms?.p50 ?? null,
    line: null,
  });
  choices.push({
    name: 'delivery %',
    of: (s) => (s.delivery_rate === null ? null : s.delivery_rate * 100),
    line: { value: run.slo.delivery_rate * 100, label: `SLO ${run.slo.delivery_rate * 100} %` },
  });
  return (
    choices.find((c) => run.steps.some((s) => c.of(s) !== null)) ?? choices[choices.length - 1]
  );
}

/**
 * A step's place on the row's axis: the measured figure the row reports, else what the step asked.
 */
function xOf(dim: CapacityDimension, s: StepResult): number | null {
  return STEP_METRICS[dim.value](s) ?? STEP_METRICS[dim.driver](s);
}

function dashed(colour: string) {
  return { symbol: 'none', silent: true, lineStyle: { type: 'dashed' as const, color: colour } };
}

interface RowPoint {
  s: StepResult;
  x: number;
  y: number;
}

/**
 * A row's small chart as drawn: the row, its points in x order, and whether x is the row's driver
 * as measured (else the step number).
 */
interface RowView {
  row: CapacityTableRow;
  points: readonly RowPoint[];
  measured: boolean;
}

/** The knee (the first step that was not stable) and the row's value, as vertical marks. */
function verticalMarks(view: RowView, run: RunResult, dim: CapacityDimension) {
  const { row, points, measured } = view;
  const knee = findKnee(run.steps, dim.driver).first_unsafe;
  const kneeStep = knee ? points.find((p) => p.s.index === knee.step) : undefined;
  const marks: { xAxis: number; label: { formatter: string }; lineStyle?: { color: string } }[] =
    [];
  if (kneeStep)
    marks.push({
      xAxis: kneeStep.x,
      label: { formatter: 'knee' },
      lineStyle: { color: VERDICT_COLOURS.broken },
    });
  if (row.value !== null && measured)
    marks.push({
      xAxis: row.value,
      label: { formatter: row.bound === 'lower' ? 'value (≥)' : 'value' },
      lineStyle: { color: '#1565c0' },
    });
  return marks;
}

/** The steps as a grey line and verdict-coloured points, with the marks and the y line. */
function rowSeries(points: readonly RowPoint[], y: YAxis, marks: ReturnType<typeof verticalMarks>) {
  const yLine = y.line
    ? [{ yAxis: y.line.value, label: { formatter: y.line.label }, lineStyle: { color: '#c62828' } }]
    : [];
  return [
    {
      type: 'line' as const,
      name: y.name,
      showSymbol: false,
      lineStyle: { color: '#90a4ae' },
      data: points.map((p) => [p.x, p.y]),
    },
    {
      type: 'scatter' as const,
      name: 'steps',
      symbolSize: 8,
      data: points.map((p) => ({
        value: [p.x, p.y],
        itemStyle: { color: VERDICT_COLOURS[p.s.verdict] },
      })),
      markLine: { ...dashed('#1565c0'), data: [...marks, ...yLine] },
    },
  ];
}

/** The small chart's axes; the value's mark stays on the chart when it lies beyond the steps. */
function rowAxes(view: RowView, xName: string, y: YAxis) {
  const { row, points, measured } = view;
  const xMax = Math.max(...points.map((p) => p.x));
  const extend =
    measured && row.value !== null && row.value > xMax ? { max: Math.ceil(row.value * 1.05) } : {};
  return {
    xAxis: {
      type: 'value' as const,
      name: xName,
      nameLocation: 'middle' as const,
      nameGap: 24,
      min: 0,
      ...extend,
      axisLabel: { fontSize: 10 },
    },
    yAxis: {
      type: 'value' as const,
      name: y.name,
      min: 0,
      axisLabel: { fontSize: 10 },
      nameTextStyle: { fontSize: 10 },
    },
  };
}

export function rowChart(
  row: CapacityTableRow,
  run: RunResult | null,
  href: string | null,
  safe: { cpu_pct: number; mem_pct: number },
): RowChart {
  const dim = CAPACITY_DIMENSIONS.find((d) => d.id === row.id)!;
  const id = `row-${row.id}`;
  const title = `${row.no}. ${row.dimension}`;
  if (!run) return { id, no: row.no, title, svg: null, caption: row.reason ?? 'no run', href };
  const y = yFor(dim, run, safe);
  // A run that never measured the row's driver is drawn against its step numbers, and says so.
  const measured = run.steps.some((s) => xOf(dim, s) !== null);
  const xName = measured ? dim.label.split(' — ').pop()! : 'step (driver not measured)';
  const points = run.steps
    .map((s) => ({ s, x: measured ? xOf(dim, s) : s.index, y: y.of(s) }))
    .filter((p): p is RowPoint => p.x !== null && p.y !== null);
  if (points.length === 0) {
    const caption = `no step of ${run.run_id} has both figures measured`;
    return { id, no: row.no, title, svg: null, caption, href };
  }
  points.sort((a, b) => a.x - b.x);
  const view: RowView = { row, points, measured };
  const marks = verticalMarks(view, run, dim);
  const { xAxis, yAxis } = rowAxes(view, xName, y);
  const series = rowSeries(points, y, marks);
  const grid = { left: 52, right: 66, top: 20, bottom: 40 };
  const svg = renderSvg(id, { grid, xAxis, yAxis, series }, ROW_CHART_WIDTH, ROW_CHART_HEIGHT);
  const caption = `${row.display}${row.limiting_factor ? ` (${row.limiting_factor})` : ''} — ${run.run_id}, ${points.length} step${points.length === 1 ? '' : 's'}`;
  return { id, no: row.no, title, svg, caption, href };
}

/**
 * The twelve charts, in docs/METHOD.md §7 order: each row's evidence run, else the first run of its
 * scenario.
 */
export function rowCharts(
  rows: readonly CapacityTableRow[],
  runs: ReadonlyMap<string, RunResult>,
  safe: { cpu_pct: number; mem_pct: number },
): RowChart[] {
  return rows.map((row) => {
    const dim = CAPACITY_DIMENSIONS.find((d) => d.id === row.id)!;
    let dir = row.evidence?.dir ?? null;
    if (dir === null)
      dir =
        [...runs.entries()].find(([, r]) => dim.scenarios.includes(r.profile.scenario))?.[0] ??
        null;
    const run = dir !== null ? (runs.get(dir) ?? null) : null;
    const href = dir !== null ? `${dir.replace(/\/+$/, '')}/report.html` : null;
    return rowChart(row, run, href, safe);
  });
}

export const ROW_CHARTS_CSS =
  '.row-charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(340px, 1fr)); gap: 10px; } .row-charts figure { margin: 0; border: 1px solid var(--line); padding: 6px; } .row-charts h3 { font-size: 13px; margin: 0 0 4px; } .row-charts svg { width: 100%; height: auto; } .row-charts figcaption { font-size: 12px; color: var(--muted); }';

export function rowChartsHtml(charts: readonly RowChart[]): string {
  const figs = charts.map((c) => {
    const body = c.svg ?? `<p class="muted">no chart: ${escapeHtml(c.caption)}</p>`;
    const link = c.href ? ` <a href="${escapeHtml(c.href)}">run report</a>` : '';
    const caption = c.svg
      ? `<figcaption>${escapeHtml(c.caption)}${link}</figcaption>`
      : `<figcaption>${link}</figcaption>`;
    return `<figure class="chart row-chart" data-chart="${escapeHtml(c.id)}" data-empty="${c.svg ? 'false' : 'true'}">\n<h3>${escapeHtml(c.title)}</h3>\n${body}\n${caption}\n</figure>`;
  });
  return `<div class="row-charts">\n${figs.join('\n')}\n</div>`;
}
