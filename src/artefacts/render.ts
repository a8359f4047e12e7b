/**
 * The artefacts of a result. Kept in one place so `run`, `sweep` and `report` agree: the
 * analysis stored in result.json, summary.md, report.html (from the timeseries.ndjson on
 * disk), the terminal summary, and the thresholds that decide the exit code.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analysisOptionsFromProfile, analyzeRun, type Analysis } from '../model/analysis.js';
import {
  evaluateThresholds,
  type ThresholdResult,
  type ThresholdSpec,
} from '../model/thresholds.js';
import { escapeHtml, renderReportHtml, renderTableHtml } from '../report/html.js';
import type { RunResult, StepResult } from '../result/result.js';
import type { TimeseriesPoint } from '../result/timeseries-point.js';
import { renderSummaryMarkdown } from '../report/summary.js';
import { renderMarkdownTable, type ReportTable } from '../report/table.js';
import { headline } from '../report/headline.js';
import { renderTerminalSummary } from '../report/terminal.js';
import { RunWriter } from '../run/output.js';
import type { OutputPart } from '../run/run-options.js';
import { fmtDriver } from '../sweep/spec.js';
import { recoveryWords, stepsUpToKnee, sweepKneeOf, type SweepResult } from '../sweep/record.js';

/** result.json as rtcap writes it: the run, and what sweep and thresholds add. */
export type ResultFile = SweepResult & { thresholds?: ThresholdsRecord };

export interface ThresholdsRecord {
  pass: boolean;
  /** Which steps were judged ("every step", or a sweep's steps up to its knee). */
  scope: string;
  steps: number[];
  results: { expression: string; pass: boolean; summary: string }[];
}

export function renderOutputs(r: RunResult): { markdown: string; terminal: string } {
  return { markdown: summaryMarkdown(r), terminal: terminalSummary(r) };
}

export function analysisOf(r: RunResult): Analysis {
  return analyzeRun(r, analysisOptionsFromProfile(r.profile.resolved));
}

/**
 * Threshold entries of the profile the result was run with (expressions or { threshold,
 * abort_on_fail }).
 */
export function thresholdExpressions(r: RunResult): ThresholdSpec[] {
  const t = (r.profile.resolved as { thresholds?: unknown } | null | undefined)?.thresholds;
  const isSpec = (x: unknown): x is ThresholdSpec =>
    typeof x === 'string' ||
    (typeof x === 'object' &&
      x !== null &&
      typeof (x as { threshold?: unknown }).threshold === 'string');
  return Array.isArray(t) ? t.filter(isSpec) : [];
}

/** Capacity row id → value from a run's own analysis, for `capacity.<row>` thresholds. */
export function capacityValues(r: RunResult): Record<string, number | null> {
  return Object.fromEntries(analysisOf(r).capacity.map((row) => [row.id, row.value]));
}

/**
 * Thresholds over every step of a run; over a sweep's steps up to its knee, since a sweep
 * goes past the knee on purpose. Null when the profile has none. Throws ThresholdError on an
 * expression that does not parse (the CLI checks them before a run starts).
 */
export function evaluateResultThresholds(r: RunResult): ThresholdsRecord | null {
  const specs = thresholdExpressions(r);
  if (specs.length === 0) return null;
  const steps: StepResult[] = stepsUpToKnee(r as SweepResult);
  const sweep = (r as SweepResult).sweep;
  const scope =
    sweep && steps.length !== r.steps.length
      ? `the sweep's steps up to its knee (${steps.length} of ${r.steps.length})`
      : `every step (${r.steps.length})`;
  const ev = evaluateThresholds(specs, {
    steps,
    scenario: r.profile.scenario,
    capacity: capacityValues(r),
  });
  return {
    pass: ev.pass,
    scope,
    steps: steps.map((s) => s.index),
    results: ev.results.map((x: ThresholdResult) => ({
      expression: x.threshold.expression,
      pass: x.pass,
      summary: x.summary,
    })),
  };
}

export function thresholdsText(t: ThresholdsRecord): string {
  const passed = t.results.filter((x) => x.pass).length;
  const lines = [
    `thresholds: ${t.pass ? 'PASS' : 'FAIL'} — ${passed} of ${t.results.length} passed, on ${t.scope}`,
  ];
  for (const x of t.results) lines.push(`  ${x.pass ? 'pass' : 'FAIL'}  ${x.summary}`);
  return lines.join('\n');
}

function sweepTable(r: SweepResult): ReportTable | null {
  const sw = r.sweep;
  if (!sw) return null;
  const byIndex = new Map(r.steps.map((s) => [s.index, s]));
  return {
    id: 'sweep',
    title: `Sweep over ${sw.driver}`,
    columns: ['step', sw.driver, 'phase', 'verdict', 'why', 'recovery before'],
    align: ['right', 'right', 'left', 'left', 'left', 'left'],
    rows: sw.points.map((p, i) => {
      const s = byIndex.get(p.step);
      return [
        String(p.step),
        fmtDriver(sw.driver, p.value),
        p.phase,
        s?.search?.inconclusive ? `${s.verdict} (inconclusive)` : (s?.verdict ?? 'not run'),
        s?.verdict_reasons[0] ?? '',
        sw.mode === 'search' ? recoveryWords(p.recovery, i === 0) : '—',
      ];
    }),
    notes: sweepNotes(r),
  };
}

function sweepNotes(r: SweepResult): string[] {
  const sw = r.sweep!;
  const k = sweepKneeOf(r);
  const f = (v: number) => fmtDriver(sw.driver, v);
  const out: string[] = [];
  if (k?.last_stable && k.first_broken)
    out.push(
      `Knee: last stable ${sw.driver} ${f(k.last_stable.value)} (step ${k.last_stable.step}), first broken ${f(k.first_broken.value)} (step ${k.first_broken.step}).`,
    );
  else if (k?.safe && k.first_unsafe)
    out.push(
      `Knee: highest stable ${sw.driver} ${f(k.safe.value)} (step ${k.safe.step}), first not stable ${f(k.first_unsafe.value)} (step ${k.first_unsafe.step}, ${r.steps.find((s) => s.index === k.first_unsafe!.step)?.verdict ?? 'not stable'}).`,
    );
  else out.push('Knee: not found (no broken step above a stable one).');
  if (k?.safe && k.first_unsafe && k.first_unsafe.value !== k.first_broken?.value)
    out.push(
      `Latency first: highest stable ${f(k.safe.value)} (step ${k.safe.step}) before the first degraded ${f(k.first_unsafe.value)} (step ${k.first_unsafe.step}).`,
    );
  if (sw.stop_reason) out.push(`Stopped: ${sw.stop_reason}.`);
  if (sw.resumed_at.length) out.push(`Resumed at ${sw.resumed_at.join(', ')}.`);
  out.push(...searchMarkNotes(r));
  return out;
}

/**
 * What the search did about single steps: measured while the server was still recovering
 * (never the knee), waits of the recovery probe, percentiles on too few samples.
 */
function searchMarkNotes(r: SweepResult): string[] {
  const out: string[] = [];
  const waited = r.sweep!.points.filter(
    (p) => p.recovery && p.recovery.wait_ms >= 2_000 && p.recovery.recovered,
  );
  if (waited.length)
    out.push(
      `Recovery: waited ${waited.map((p) => `${(p.recovery!.wait_ms / 1000).toFixed(1)} s before step ${p.step}`).join(', ')} for the server to come back to its baseline.`,
    );
  for (const s of r.steps) {
    const m = s.search;
    if (!m) continue;
    if (m.recovered === false)
      out.push(
        `Step ${s.index} was measured while the server was still recovering: inconclusive, not the knee, run again.`,
      );
    for (const n of m.notes)
      if (!n.startsWith('not back to the baseline')) out.push(`Step ${s.index}: ${n}.`);
  }
  return out;
}

function thresholdsTable(t: ThresholdsRecord): ReportTable {
  return {
    id: 'thresholds',
    title: `Thresholds: ${t.pass ? 'pass' : 'FAIL'}`,
    columns: ['threshold', 'result', 'evidence'],
    align: ['left', 'left', 'left'],
    rows: t.results.map((x) => [
      x.expression,
      x.pass ? 'pass' : 'FAIL',
      x.summary.slice(x.summary.indexOf(':') + 1).trim(),
    ]),
    notes: [`Judged on ${t.scope}.`],
  };
}

export function summaryMarkdown(r: ResultFile): string {
  const parts = [renderSummaryMarkdown(r).trimEnd()];
  const sw = sweepTable(r);
  if (sw) parts.push(`## ${sw.title}`, renderMarkdownTable(sw), ...(sw.notes ?? []));
  if (r.thresholds) {
    const t = thresholdsTable(r.thresholds);
    parts.push(`## ${t.title}`, renderMarkdownTable(t), ...(t.notes ?? []));
  }
  return parts.join('\n\n') + '\n';
}

export function reportHtml(r: ResultFile, timeseries: TimeseriesPoint[]): string {
  const html = renderReportHtml(r, timeseries, analysisOptionsFromProfile(r.profile.resolved));
  const extra: string[] = [];
  const sw = sweepTable(r);
  if (sw)
    extra.push(
      `<h2 id="sweep">${escapeHtml(sw.title)}</h2>`,
      renderTableHtml({ ...sw, title: '' }),
    );
  if (r.thresholds) {
    const t = thresholdsTable(r.thresholds);
    extra.push(
      `<h2 id="thresholds">${escapeHtml(t.title)}</h2>`,
      renderTableHtml({ ...t, title: '' }),
    );
  }
  if (extra.length === 0) return html;
  const at = html.lastIndexOf('</body>');
  return html.slice(0, at) + extra.join('\n') + '\n' + html.slice(at);
}

/** The end-of-run summary: table, chart, sweep knee, thresholds, and last the headline sentence. */
export function terminalSummary(r: ResultFile, width?: number): string {
  const parts = [renderTerminalSummary(r, undefined, { width }).trimEnd()];
  if (r.sweep) {
    const k = sweepKneeOf(r);
    const f = (v: number) => fmtDriver(r.sweep!.driver, v);
    const broken = k?.first_broken
      ? r.steps.find((s) => s.index === k.first_broken!.step)
      : undefined;
    parts.push(
      k?.last_stable && k.first_broken
        ? `knee: ${r.sweep.driver} between ${f(k.last_stable.value)} (stable, step ${k.last_stable.step}) and ${f(k.first_broken.value)} (broken, step ${k.first_broken.step}: ${broken?.verdict_reasons.join('; ') ?? ''})`
        : `knee: not found — ${r.sweep.stop_reason ?? 'sweep not finished'}`,
    );
  }
  if (r.thresholds) parts.push(thresholdsText(r.thresholds));
  parts.push('', headline(r, analysisOf(r).safe_lines));
  return parts.join('\n') + '\n';
}

/** timeseries.ndjson of a run directory; a line cut by an interruption is skipped. */
export function readTimeseries(dir: string): TimeseriesPoint[] {
  const path = join(dir, 'timeseries.ndjson');
  if (!existsSync(path)) return [];
  const out: TimeseriesPoint[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line) as TimeseriesPoint);
    } catch {
      /* partial last line */
    }
  }
  return out;
}

/**
 * What the runner writes after every step: the analysis into result.json, summary.md and
 * report.html.
 */
export function runArtifactHooks(): Pick<
  OutputPart,
  'analyze' | 'renderSummary' | 'renderArtifacts'
> {
  return {
    analyze: analysisOf,
    renderSummary: (r) => summaryMarkdown(r),
    renderArtifacts: (r, dir) =>
      new RunWriter(dir).writeText('report.html', reportHtml(r, readTimeseries(dir))),
  };
}

/**
 * Every artefact of a run directory from its result: the analysis and thresholds into
 * result.json, summary.md, report.html. Each is attempted even if another fails; the
 * failures are returned (one line each).
 */
export function writeArtifacts(r: ResultFile, dir: string): string[] {
  const writer = new RunWriter(dir);
  const problems: string[] = [];
  const attempt = (what: string, f: () => void) => {
    try {
      f();
    } catch (e) {
      problems.push(`${what}: ${(e as Error).message}`);
    }
  };
  attempt('analysis', () => {
    r.analysis = analysisOf(r);
  });
  attempt('thresholds', () => {
    const t = evaluateResultThresholds(r);
    if (t) r.thresholds = t;
    else delete r.thresholds;
  });
  attempt('result.json', () => writer.writeResult(r));
  attempt('summary.md', () => writer.writeText('summary.md', summaryMarkdown(r)));
  attempt('report.html', () => writer.writeText('report.html', reportHtml(r, readTimeseries(dir))));
  return problems;
}
