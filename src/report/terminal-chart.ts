/**
 * Latency against load as a small text chart for the terminal summary: one marker per step
 * (its verdict), first-receipt p95 on a log scale (stable steps sit at milliseconds, broken
 * ones at seconds) against deliveries/s — or connections when no message flowed — from
 * zero, with the SLO as a dotted row. Plain characters, no colour, so it reads the same in a
 * CI log and in a file; it takes the width it is given.
 */
import { fmtInt, fmtMs } from '../model/format.js';
import type { RunResult, StepResult, Verdict } from '../result/result.js';

const MARK: Record<Verdict, string> = {
  stable: '●',
  degraded: '▲',
  broken: '✕',
  'generator-bound': '○',
  inconclusive: '?',
};
const INCOMPLETE_MARK = '◌';
const SLO_CHAR = '┄';
const LABEL_W = 10;

interface Point {
  x: number;
  y: number;
  mark: string;
}

/** 1, 2, 2.5, 5 × 10^k at or above v (the axis's end; its half is a round number too). */
export function niceCeil(v: number): number {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

function loadOf(steps: readonly StepResult[]): {
  label: string;
  x: (s: StepResult) => number | null;
} {
  const flows = steps.some((s) => (s.rates?.delivered_per_s ?? 0) > 0);
  return flows
    ? { label: 'deliveries/s', x: (s) => s.rates?.delivered_per_s ?? null }
    : { label: 'connections', x: (s) => s.connections?.joined ?? null };
}

function shortMs(ms: number): string {
  return ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`;
}

/** The chart's lines, or null when no step has a latency to plot. `width` is the whole line. */
export function latencyLoadChart(r: RunResult, width: number, height = 9): string[] | null {
  const load = loadOf(r.steps);
  const points: Point[] = [];
  for (const s of r.steps) {
    const x = load.x(s);
    const y = s.latency_ms?.p95;
    if (x === null || y === null || y === undefined || !(y > 0)) continue;
    points.push({ x, y, mark: s.complete === false ? INCOMPLETE_MARK : MARK[s.verdict] });
  }
  if (points.length === 0) return null;

  const plotW = Math.max(20, width - LABEL_W - 2);
  const slo = r.slo.p95_ms;
  const ys = [...points.map((p) => p.y), slo];
  const lo = 10 ** Math.floor(Math.log10(Math.min(...ys)));
  let hi = 10 ** Math.ceil(Math.log10(Math.max(...ys)));
  if (hi <= lo) hi = lo * 10;
  const rowOf = (y: number) =>
    Math.round(
      ((Math.log10(y) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * (height - 1),
    );
  const xMax = niceCeil(Math.max(...points.map((p) => p.x)));
  const colOf = (x: number) => Math.min(plotW - 1, Math.round((x / xMax) * (plotW - 1)));

  const grid = Array.from({ length: height }, () => Array<string>(plotW).fill(' '));
  grid[rowOf(slo)].fill(SLO_CHAR);
  // Later steps drawn last: on one cell the latest step shows.
  for (const p of points) grid[rowOf(p.y)][colOf(p.x)] = p.mark;

  const labels = new Map<number, string>();
  for (let d = lo; d <= hi * 1.0001; d *= 10)
    labels.set(rowOf(d), shortMs(Number(d.toPrecision(1))));
  labels.set(rowOf(slo), `SLO ${fmtMs(slo)}`.replace(' ms', 'ms'));

  const lines = [`first-receipt p95 (log scale) vs ${load.label}, one marker per step:`];
  for (let row = height - 1; row >= 0; row--) {
    lines.push(`${(labels.get(row) ?? '').padStart(LABEL_W)} │${grid[row].join('').trimEnd()}`);
  }
  lines.push(`${' '.repeat(LABEL_W)} └${'─'.repeat(plotW)}`);
  const left = '0';
  const right = fmtInt(xMax);
  const mid = fmtInt(xMax / 2);
  const axis = Array<string>(plotW + 2).fill(' ');
  const put = (at: number, text: string) => text.split('').forEach((c, i) => (axis[at + i] = c));
  put(1, left);
  put(Math.max(left.length + 2, Math.round(plotW / 2) + 1 - Math.floor(mid.length / 2)), mid);
  put(plotW + 2 - right.length, right);
  lines.push(`${' '.repeat(LABEL_W)}${axis.join('').trimEnd()}  ${load.label}`);
  const legend = `${MARK.stable} stable  ${MARK.degraded} degraded  ${MARK.broken} broken  ${MARK['generator-bound']} generator-bound (not capacity)  ${INCOMPLETE_MARK} incomplete  ${SLO_CHAR} SLO`;
  lines.push(`${' '.repeat(LABEL_W + 2)}${legend}`);
  return lines;
}
