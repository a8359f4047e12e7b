/**
 * `rtcap compare A B`: two runs side by side per step, with the difference
 * and whether it is better or worse: a baseline run against a candidate run, as Markdown
 * (the comparison itself is compare-runs.ts; the figures and how they print, compare-metrics.ts).
 * Where the load or the runs differ, the Markdown says so before any number.
 */
import { analyzeRun, analysisOptionsFromProfile, type Analysis } from '../model/analysis.js';
import { DASH, fmtInt } from '../model/format.js';
import type { GateResult } from '../model/gates.js';
import type { RunResult } from '../result/result.js';
import { COMPARED_METRICS, sign } from './compare-metrics.js';
import { compareRuns, type StepComparison } from './compare-runs.js';
import { renderMarkdownTable, type ReportTable } from './table.js';

function stepTable(s: StepComparison): ReportTable {
  const rows = s.cells.map((c, i) => {
    const m = COMPARED_METRICS[i];
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

/** The `--fail-on` gates of a comparison, evaluated (model/gates evaluateFailOn). */
export interface ComparisonGates {
  pass: boolean;
  results: readonly GateResult[];
}

/** The header table: what each run was, before any figure. */
function runsTable(a: RunResult, b: RunResult): string {
  return renderMarkdownTable({
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
  });
}

/** "## Recommended capacity": each dimension either run has, A beside B; none when neither. */
function capacitySection(aa: Analysis, ab: Analysis): string[] {
  const dims = [...new Set([...aa.capacity.map((r) => r.id), ...ab.capacity.map((r) => r.id)])];
  if (!dims.length) return [];
  const table = renderMarkdownTable({
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
  });
  return ['## Recommended capacity', '', table, ''];
}

/** "## Fits": each fit either run made, A's line then B's; none when neither has one. */
function fitsSection(aa: Analysis, ab: Analysis): string[] {
  const fitIds = [...new Set([...aa.fits, ...ab.fits].filter((f) => f.fit).map((f) => f.spec.id))];
  if (!fitIds.length) return [];
  const out = ['## Fits', ''];
  for (const id of fitIds) {
    out.push(`- A: ${aa.fits.find((f) => f.spec.id === id)?.text ?? DASH}`);
    out.push(`- B: ${ab.fits.find((f) => f.spec.id === id)?.text ?? DASH}`);
  }
  out.push('');
  return out;
}

/**
 * Markdown of two runs side by side; with `gates`, their verdicts come first, so the file a CI
 * step keeps says why it failed (the figure, the step, A → B). Then the caveats, one table per
 * step, capacity and fits side by side.
 */
export function renderComparison(a: RunResult, b: RunResult, gates?: ComparisonGates): string {
  const c = compareRuns(a, b);
  const out: string[] = [`# rtcap compare: A ${a.run_id} vs B ${b.run_id}`, ''];
  out.push(runsTable(a, b), '');
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
  out.push(...capacitySection(aa, ab), ...fitsSection(aa, ab));
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
