/**
 * summary.md: a header saying what was measured and how, the seed-002
 * tables of the run's scenario from measured values, every step in full, the docs/METHOD.md §7
 * capacity and §8 advice tables, errors by verbatim reason, and the notes that say which figures
 * not to trust. `buildSummary` gives the same content as data for the HTML report.
 */
import {
  analysisOptionsFromProfile,
  analyzeRun,
  type Analysis,
  type AnalysisOptions,
} from '../model/analysis.js';
import { DASH, fmtInt, fmtMs, fmtRatioPct } from '../model/format.js';
import { limitWords } from '../model/limit.js';
import { collectNotes } from './notes.js';
import { targetUrlCell } from './cells.js';
import type { RunResult } from '../result/result.js';
import { sectionFor } from './sections/index.js';
import { stepsTable } from './sections/common.js';
import { renderMarkdownTable, type ReportTable } from './table.js';

export interface Summary {
  title: string;
  /** Label / value rows of the header. */
  header: [string, string][];
  /** The scenario's seed-002 section, if the scenario has one registered. */
  section: { title: string; tables: ReportTable[] } | null;
  steps: ReportTable;
  capacity: ReportTable | null;
  advice: ReportTable | null;
  errors: ReportTable | null;
  notes: string[];
  analysis: Analysis;
}

function statusText(r: RunResult): string {
  return r.abort_reason ? `${r.status} — ${r.abort_reason}` : r.status;
}

function headerRows(r: RunResult): [string, string][] {
  const t = r.target;
  const g = r.generator;
  const slo = [`p95 ≤ ${fmtMs(r.slo.p95_ms)}`];
  if (r.slo.p99_ms !== undefined) slo.push(`p99 ≤ ${fmtMs(r.slo.p99_ms)}`);
  slo.push(`delivery ≥ ${fmtRatioPct(r.slo.delivery_rate)}`);
  const limits = [
    g.limits.open_files_per_process != null
      ? `${fmtInt(g.limits.open_files_per_process)} open files per process`
      : null,
    g.limits.ephemeral_ports != null
      ? `${fmtInt(g.limits.ephemeral_ports)} ephemeral ports per source address`
      : null,
  ].filter(Boolean);
  return [
    ['run', r.run_id],
    ['status', statusText(r)],
    [
      'scenario',
      `${r.profile.scenario} (profile ${r.profile.name}${r.profile.path ? `, ${r.profile.path}` : ''})`,
    ],
    [
      'target',
      `${targetUrlCell(t)} — ${t.builtin ? 'built-in server' : 'external server'}; vsn ${t.vsn}, dialect ${t.dialect}, topic ${t.topic}`,
    ],
    [
      'instance',
      `${t.instance.vcpus} vCPU / ${fmtInt(t.instance.memory_mb)} MiB (basis of server CPU % and memory %)${t.cpus ? `; server on cpus ${t.cpus}` : ''}`,
    ],
    ['server sampling', t.server_sampling ?? 'not sampled'],
    [
      'generator',
      `${g.workers} worker${g.workers === 1 ? '' : 's'}${g.cpus ? ` on cpus ${g.cpus}` : ''}; source addresses ${g.source_addresses.join(', ') || DASH}; host ${g.host.cores} cores / ${fmtInt(g.host.memory_mb)} MiB, Node ${g.host.node}, ${g.host.platform}${limits.length ? `; limits: ${limits.join(', ')}` : ''}`,
    ],
    ...segmentRows(r),
    ['SLO', slo.join(', ')],
    ['started / finished', `${r.started_at} / ${r.finished_at ?? DASH}`],
    ['rtcap', r.rtcap_version],
  ];
}

/** A merged run (rtcap merge): its segments, and which receipts its latency stands on. */
function segmentRows(r: RunResult): [string, string][] {
  const seg = r.segments;
  if (!seg) return [];
  let same = 0;
  let other = 0;
  for (const s of r.steps) {
    const scope = s.extra.latency_scope as
      { receipts_same_machine?: number; receipts_other_machine?: number } | undefined;
    same += scope?.receipts_same_machine ?? 0;
    other += scope?.receipts_other_machine ?? 0;
  }
  return [
    [
      'segments',
      `${seg.count} (run ${seg.run}) on ${[...new Set(seg.hosts)].join(', ')}; ${seg.workers} generator processes`,
    ],
    [
      'clocks',
      `${seg.clocks} (${fmtInt(same)} receipts timed, ${fmtInt(other)} from another machine counted only)`,
    ],
    ...(seg.clock_offsets ? [clockOffsetRow(seg.clock_offsets)] : []),
  ];
}

/**
 * The segments' clocks against segment 0's, as measured from the receipts, and which of them
 * are beyond the shared schedule's margin.
 */
function clockOffsetRow(
  c: NonNullable<NonNullable<RunResult['segments']>['clock_offsets']>,
): [string, string] {
  if (c.segments.length === 0)
    return ['clock offsets', 'not measured (no message received on segment 0 and another)'];
  const signed = (ms: number) => `${ms >= 0 ? '+' : '−'}${fmtInt(Math.abs(Math.round(ms)))} ms`;
  const parts = c.segments.map(
    (s) =>
      `segment ${s.segment} ${signed(s.offset_ms)} (IQR ${s.iqr_ms} ms, ${fmtInt(s.messages)} messages)`,
  );
  const off = c.segments.filter((s) => Math.abs(s.offset_ms) > c.margin_ms);
  const warning = off.length
    ? `; beyond the ${fmtInt(c.margin_ms)} ms margin of the shared --start-at schedule: ` +
      `segment ${off.map((s) => s.segment).join(', ')} joined or sent outside the others' windows ` +
      '(counts may include joins after sends; synchronise the clocks)'
    : '';
  return [
    'clock offsets',
    `vs segment 0, from first receipts of the same messages: ${parts.join('; ')}${warning}`,
  ];
}

function capacityTableOf(a: Analysis): ReportTable | null {
  if (a.capacity.length === 0) return null;
  return {
    id: 'capacity',
    title: 'Recommended capacity (seed 002 §7)',
    columns: ['no.', 'dimension', 'recommended', 'limiting factor', 'evidence'],
    align: ['right', 'left', 'right', 'left', 'left'],
    rows: a.capacity.map((c) => [
      String(c.no),
      c.dimension,
      c.display,
      limitWords(c.limit),
      c.evidence,
    ]),
    notes: [
      `Safe lines: CPU ${a.safe_lines.cpu_pct} %, memory ${a.safe_lines.mem_pct} %. A value is the smaller of the fit's crossing and the highest stable step before the first failure, rounded down; never above a stable step measured.`,
    ],
  };
}

function adviceTableOf(a: Analysis): ReportTable | null {
  if (a.advice.length === 0) return null;
  return {
    id: 'advice',
    title: 'Configuration advice (seed 002 §8)',
    columns: ['setting (key)', 'recommended', 'reason', 'benefit'],
    align: ['left', 'right', 'left', 'left'],
    rows: a.advice.map((r) => [r.setting, r.display, r.reason, r.benefit]),
  };
}

function errorsTableOf(r: RunResult): ReportTable | null {
  const byReason = new Map<string, { count: number; steps: number[] }>();
  for (const s of r.steps) {
    for (const [reason, n] of Object.entries(s.errors ?? {})) {
      if (!(n > 0)) continue;
      const e = byReason.get(reason) ?? { count: 0, steps: [] };
      e.count += n;
      e.steps.push(s.index);
      byReason.set(reason, e);
    }
  }
  if (byReason.size === 0) return null;
  return {
    id: 'errors',
    title: 'Errors by reason (verbatim)',
    columns: ['reason', 'count', 'steps'],
    align: ['left', 'right', 'left'],
    rows: [...byReason]
      .sort((a, b) => b[1].count - a[1].count)
      .map(([reason, e]) => [reason, fmtInt(e.count), e.steps.join(', ')]),
  };
}

export function buildSummary(result: RunResult, opts?: AnalysisOptions): Summary {
  const analysis = analyzeRun(result, opts ?? analysisOptionsFromProfile(result.profile.resolved));
  const ctx = { result, analysis };
  const section = sectionFor(result.profile.scenario);
  return {
    title: `rtcap — ${result.profile.name} (${result.profile.scenario}) — run ${result.run_id}`,
    header: headerRows(result),
    section: section ? { title: section.title, tables: section.tables(ctx) } : null,
    steps: stepsTable(ctx),
    capacity: capacityTableOf(analysis),
    advice: adviceTableOf(analysis),
    errors: errorsTableOf(result),
    notes: collectNotes(result, analysis, section?.notes?.(ctx) ?? []),
    analysis,
  };
}

function mdTableBlock(t: ReportTable, level: string): string {
  const notes = (t.notes ?? []).map((n) => `\n${n}`).join('\n');
  return `${level} ${t.title}\n\n${renderMarkdownTable(t)}\n${notes}`;
}

export function renderSummaryMarkdown(result: RunResult, opts?: AnalysisOptions): string {
  const s = buildSummary(result, opts);
  const out: string[] = [`# ${s.title}`, ''];
  out.push(
    renderMarkdownTable({
      id: 'header',
      title: '',
      columns: ['', ''],
      align: ['left', 'left'],
      rows: s.header,
    }),
    '',
  );
  if (s.section) {
    out.push(`## ${s.section.title}`, '');
    for (const t of s.section.tables) out.push(mdTableBlock(t, '###'), '');
  }
  out.push(mdTableBlock(s.steps, '##'), '');
  out.push(
    s.capacity
      ? mdTableBlock(s.capacity, '##')
      : '## Recommended capacity (seed 002 §7)\n\nNo dimension was measured: no driver took two or more values on steps that count.',
    '',
  );
  if (s.advice) out.push(mdTableBlock(s.advice, '##'), '');
  out.push(s.errors ? mdTableBlock(s.errors, '##') : '## Errors by reason (verbatim)\n\nNone.', '');
  out.push('## Notes', '');
  out.push(
    s.notes.length
      ? s.notes.map((n) => `- ${n}`).join('\n')
      : '- None: every step was measured in full by a generator that kept up.',
    '',
  );
  return out.join('\n');
}
