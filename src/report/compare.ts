/**
 * `rtcap compare A B`: two runs side by side per step, with the difference
 * and whether it is better or worse: a baseline run against a candidate run.
 * Steps are matched by index; where the load they asked for differs, or the runs differ in
 * scenario, instance, SLO or target, the comparison says so before any number, since a
 * difference in figures then says nothing about the server.
 */
import { analyzeRun, analysisOptionsFromProfile } from '../model/analysis.js';
import {
  DASH,
  fmtInt,
  fmtMs,
  fmtPct,
  fmtRate,
  fmtRatioPct,
  INCOMPLETE_LABEL,
} from '../model/format.js';
import { STEP_METRICS, type StepMetricName } from '../model/metrics.js';
import type { GateResult } from '../model/gates.js';
import type { RunResult, StepResult } from '../result/result.js';
import { renderMarkdownTable, type ReportTable } from './table.js';

type Better = 'higher' | 'lower' | 'none';

interface MetricSpec {
  metric: StepMetricName;
  label: string;
  fmt: (v: number | null) => string;
  /** How the difference is printed: absolute in the metric's unit, or percentage points. */
  delta: (d: number) => string;
  better: Better;
}

const sign = (d: number) => (d > 0 ? '+' : d < 0 ? '−' : '±');
const abs = (f: (v: number) => string) => (d: number) => `${sign(d)}${f(Math.abs(d))}`;

const METRICS: MetricSpec[] = [
  {
    metric: 'connections',
    label: 'connections joined',
    fmt: fmtInt,
    delta: abs(fmtInt),
    better: 'higher',
  },
  {
    metric: 'failed',
    label: 'connections failed',
    fmt: fmtInt,
    delta: abs(fmtInt),
    better: 'lower',
  },
  {
    metric: 'disconnected',
    label: 'disconnected',
    fmt: fmtInt,
    delta: abs(fmtInt),
    better: 'lower',
  },
  {
    metric: 'sent_per_s',
    label: 'sent/s',
    fmt: fmtRate,
    delta: abs((v) => fmtRate(v)),
    better: 'none',
  },
  {
    metric: 'delivered_per_s',
    label: 'delivered/s',
    fmt: fmtRate,
    delta: abs((v) => fmtRate(v)),
    better: 'none',
  },
  {
    metric: 'delivery_rate',
    label: 'delivery',
    fmt: fmtRatioPct,
    delta: (d) => `${sign(d)}${Math.abs(d * 100).toFixed(2)} pp`,
    better: 'higher',
  },
  { metric: 'p50_ms', label: 'first receive p50', fmt: fmtMs, delta: abs(fmtMs), better: 'lower' },
  { metric: 'p95_ms', label: 'first receive p95', fmt: fmtMs, delta: abs(fmtMs), better: 'lower' },
  { metric: 'p99_ms', label: 'first receive p99', fmt: fmtMs, delta: abs(fmtMs), better: 'lower' },
  {
    metric: 'fanout_p95_ms',
    label: 'fan-out span p95',
    fmt: fmtMs,
    delta: abs(fmtMs),
    better: 'lower',
  },
  {
    metric: 'cpu_pct',
    label: 'server CPU',
    fmt: (v) => fmtPct(v),
    delta: (d) => `${sign(d)}${Math.abs(d).toFixed(1)} pp`,
    better: 'lower',
  },
  {
    metric: 'mem_pct',
    label: 'server memory',
    fmt: (v) => fmtPct(v),
    delta: (d) => `${sign(d)}${Math.abs(d).toFixed(1)} pp`,
    better: 'lower',
  },
  { metric: 'errors', label: 'errors', fmt: fmtInt, delta: abs(fmtInt), better: 'lower' },
  {
    metric: 'generator_cpu_pct',
    label: 'generator CPU',
    fmt: (v) => fmtPct(v, 0),
    delta: (d) => `${sign(d)}${Math.abs(d).toFixed(0)} pp`,
    better: 'none',
  },
];

export interface ComparisonCell {
  label: string;
  a: number | null;
  b: number | null;
  /** b − a, null when either side is missing. */
  delta: number | null;
  /** (b − a) ÷ a, null when a is 0 or missing. */
  relative: number | null;
  /** From B's side: did the change make things better or worse? */
  judgement: 'better' | 'worse' | 'same' | null;
}

export interface StepComparison {
  index: number;
  label: string;
  verdict_a: string | null;
  verdict_b: string | null;
  /** Load parameters that differ ("send_rate 10 → 20"): the figures are then not like for like. */
  params_differ: string[];
  /** "A is generator-bound", "B is incomplete": why this step's figures are not server facts. */
  untrusted: string[];
  cells: ComparisonCell[];
}

export interface Comparison {
  /** Run-level differences that make the comparison not like for like. */
  caveats: string[];
  steps: StepComparison[];
}

function judge(d: number | null, better: Better): ComparisonCell['judgement'] {
  if (d === null || better === 'none') return null;
  if (d === 0) return 'same';
  return d > 0 === (better === 'higher') ? 'better' : 'worse';
}

function paramsDiffer(a: StepResult, b: StepResult): string[] {
  const keys = new Set([...Object.keys(a.params), ...Object.keys(b.params)]);
  keys.delete('duration_s'); // a longer steady state measures the same load
  const out: string[] = [];
  for (const k of [...keys].sort()) {
    const va = a.params[k] ?? null;
    const vb = b.params[k] ?? null;
    if (va !== vb) out.push(`${k} ${va ?? DASH} → ${vb ?? DASH}`);
  }
  return out;
}

function runCaveats(a: RunResult, b: RunResult): string[] {
  const out: string[] = [];
  const diff = (what: string, x: unknown, y: unknown) => {
    const sx = JSON.stringify(x);
    const sy = JSON.stringify(y);
    if (sx !== sy) out.push(`${what} differs: ${sx} → ${sy}`);
  };
  diff('scenario', a.profile.scenario, b.profile.scenario);
  diff('instance', a.target.instance, b.target.instance);
  diff('SLO', a.slo, b.slo);
  diff('target', a.target.url, b.target.url);
  diff('server sampling', a.target.server_sampling, b.target.server_sampling);
  diff('generator workers', a.generator.workers, b.generator.workers);
  if (a.steps.length !== b.steps.length)
    out.push(
      `step count differs: ${a.steps.length} → ${b.steps.length}; only steps present in both are compared`,
    );
  for (const [name, r] of [
    ['A', a],
    ['B', b],
  ] as const) {
    if (r.status !== 'completed')
      out.push(`run ${name} is ${r.status}${r.abort_reason ? ` (${r.abort_reason})` : ''}`);
  }
  return out;
}

export function compareRuns(a: RunResult, b: RunResult): Comparison {
  const byIndexB = new Map(b.steps.map((s) => [s.index, s]));
  const steps: StepComparison[] = [];
  for (const sa of a.steps) {
    const sb = byIndexB.get(sa.index);
    if (!sb) continue;
    const cells = METRICS.map((m) => {
      const va = STEP_METRICS[m.metric](sa);
      const vb = STEP_METRICS[m.metric](sb);
      const delta = va !== null && vb !== null ? vb - va : null;
      const relative = delta !== null && va !== null && va !== 0 ? delta / va : null;
      return { label: m.label, a: va, b: vb, delta, relative, judgement: judge(delta, m.better) };
    });
    const untrusted: string[] = [];
    for (const [name, st] of [
      ['A', sa],
      ['B', sb],
    ] as const) {
      if (st.verdict === 'generator-bound')
        untrusted.push(`${name} is generator-bound (not server capacity)`);
      if (st.verdict === 'inconclusive')
        untrusted.push(`${name} is inconclusive (nothing measured)`);
      if (st.complete === false) untrusted.push(`${name} is ${INCOMPLETE_LABEL}`);
    }
    steps.push({
      index: sa.index,
      label: sa.label,
      verdict_a: sa.verdict,
      verdict_b: sb.verdict,
      params_differ: paramsDiffer(sa, sb),
      untrusted,
      cells,
    });
  }
  return { caveats: runCaveats(a, b), steps };
}

function stepTable(s: StepComparison): ReportTable {
  const rows = s.cells.map((c, i) => {
    const m = METRICS[i];
    const rel =
      c.relative === null || c.delta === 0
        ? ''
        : ` (${sign(c.relative)}${Math.abs(c.relative * 100).toFixed(1)}%)`;
    const d =
      c.delta === null
        ? DASH
        : c.delta === 0
          ? '0'
          : `${m.delta(c.delta)}${m.metric === 'delivery_rate' || m.metric.endsWith('_pct') ? '' : rel}`;
    return [c.label, m.fmt(c.a), m.fmt(c.b), d, c.judgement ?? ''];
  });
  rows.unshift([
    'verdict',
    s.verdict_a ?? DASH,
    s.verdict_b ?? DASH,
    s.verdict_a === s.verdict_b ? 'same' : `${s.verdict_a} → ${s.verdict_b}`,
    '',
  ]);
  return {
    id: `compare-step-${s.index}`,
    title: `Step ${s.index}${s.label && s.label !== `step ${s.index}` ? ` · ${s.label}` : ''}`,
    columns: ['figure', 'A', 'B', 'B − A', 'B is'],
    align: ['left', 'right', 'right', 'right', 'left'],
    rows,
    notes: [
      ...(s.params_differ.length
        ? [`Not like for like — the load differs: ${s.params_differ.join(', ')}.`]
        : []),
      ...s.untrusted.map(
        (u) => `${u}: differences in this step say nothing certain about the server.`,
      ),
    ],
  };
}

/** Markdown: header of both runs, caveats, one table per step, capacity and fits side by side. */
/** The `--fail-on` gates of a comparison, evaluated (model/gates evaluateFailOn). */
export interface ComparisonGates {
  pass: boolean;
  results: readonly GateResult[];
}

/**
 * Markdown of two runs side by side; with `gates`, their verdicts come first, so the file a CI
 * step keeps says why it failed (the figure, the step, A → B).
 */
export function renderComparison(a: RunResult, b: RunResult, gates?: ComparisonGates): string {
  const c = compareRuns(a, b);
  const out: string[] = [`# rtcap compare: A ${a.run_id} vs B ${b.run_id}`, ''];
  out.push(
    renderMarkdownTable({
      id: 'runs',
      title: '',
      columns: ['', 'A', 'B'],
      align: ['left', 'left', 'left'],
      rows: [
        [
          'profile',
          `${a.profile.name} (${a.profile.scenario})`,
          `${b.profile.name} (${b.profile.scenario})`,
        ],
        ['status', a.status, b.status],
        ['target', a.target.url, b.target.url],
        [
          'instance',
          `${a.target.instance.vcpus} vCPU / ${fmtInt(a.target.instance.memory_mb)} MiB`,
          `${b.target.instance.vcpus} vCPU / ${fmtInt(b.target.instance.memory_mb)} MiB`,
        ],
        ['started', a.started_at, b.started_at],
        ['steps', String(a.steps.length), String(b.steps.length)],
      ],
    }),
    '',
  );
  if (gates) out.push(...gatesSection(gates));
  if (c.caveats.length) out.push('## Caveats', '', ...c.caveats.map((x) => `- ${x}`), '');
  out.push('## Steps', '');
  for (const s of c.steps) {
    const t = stepTable(s);
    out.push(
      `### ${t.title}`,
      '',
      renderMarkdownTable(t),
      '',
      ...(t.notes ?? []).map((n) => `${n}\n`),
    );
  }
  const aa = analyzeRun(a, analysisOptionsFromProfile(a.profile.resolved));
  const ab = analyzeRun(b, analysisOptionsFromProfile(b.profile.resolved));
  const dims = [...new Set([...aa.capacity.map((r) => r.id), ...ab.capacity.map((r) => r.id)])];
  if (dims.length) {
    out.push('## Recommended capacity', '');
    out.push(
      renderMarkdownTable({
        id: 'compare-capacity',
        title: '',
        columns: ['dimension', 'A', 'B'],
        align: ['left', 'right', 'right'],
        rows: dims.map((id) => {
          const ra = aa.capacity.find((r) => r.id === id);
          const rb = ab.capacity.find((r) => r.id === id);
          const cell = (r: typeof ra) => (r ? `${r.display} (${r.limiting_factor})` : DASH);
          return [(ra ?? rb)!.dimension, cell(ra), cell(rb)];
        }),
      }),
      '',
    );
  }
  const fitIds = [...new Set([...aa.fits, ...ab.fits].filter((f) => f.fit).map((f) => f.spec.id))];
  if (fitIds.length) {
    out.push('## Fits', '');
    for (const id of fitIds) {
      out.push(`- A: ${aa.fits.find((f) => f.spec.id === id)?.text ?? DASH}`);
      out.push(`- B: ${ab.fits.find((f) => f.spec.id === id)?.text ?? DASH}`);
    }
    out.push('');
  }
  return out.join('\n');
}

/** "## Gates": the overall verdict, then one row per --fail-on gate with its summary line. */
export function gatesSection(gates: ComparisonGates): string[] {
  const failed = gates.results.filter((r) => !r.pass).length;
  return [
    '## Gates',
    '',
    `${gates.pass ? 'PASS' : 'FAIL'} — ${gates.results.length - failed} of ${gates.results.length} gates passed`,
    '',
    renderMarkdownTable({
      id: 'gates',
      title: '',
      columns: ['gate', 'result', 'figures (A → B)'],
      align: ['left', 'left', 'left'],
      rows: gates.results.map((r) => [r.expression, r.pass ? 'pass' : 'FAIL', r.summary]),
    }),
    '',
  ];
}
