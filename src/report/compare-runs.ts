/**
 * Two runs compared step by step: steps matched by index, B − A and its relative change per
 * figure, and whether B is better or worse; where the load they asked for differs, or the runs
 * differ in scenario, instance, SLO or target, the comparison says so, since a difference in
 * figures then says nothing about the server.
 */
import { DASH, INCOMPLETE_LABEL } from '../model/format.js';
import { STEP_METRICS } from '../model/metrics.js';
import type { RunResult, StepResult } from '../result/result.js';
import { COMPARED_METRICS, type Better } from './compare-metrics.js';

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

/** "A is generator-bound", "B is incomplete": why a step's figures are not server facts. */
function untrustedOf(sa: StepResult, sb: StepResult): string[] {
  const untrusted: string[] = [];
  for (const [name, st] of [
    ['A', sa],
    ['B', sb],
  ] as const) {
    if (st.verdict === 'generator-bound')
      untrusted.push(`${name} is generator-bound (not server capacity)`);
    if (st.verdict === 'inconclusive') untrusted.push(`${name} is inconclusive (nothing measured)`);
    if (st.complete === false) untrusted.push(`${name} is ${INCOMPLETE_LABEL}`);
  }
  return untrusted;
}

export function compareRuns(a: RunResult, b: RunResult): Comparison {
  const byIndexB = new Map(b.steps.map((s) => [s.index, s]));
  const steps: StepComparison[] = [];
  for (const sa of a.steps) {
    const sb = byIndexB.get(sa.index);
    if (!sb) continue;
    const cells = COMPARED_METRICS.map((m) => {
      const va = STEP_METRICS[m.metric](sa);
      const vb = STEP_METRICS[m.metric](sb);
      const delta = va !== null && vb !== null ? vb - va : null;
      const relative = delta !== null && va !== null && va !== 0 ? delta / va : null;
      return { label: m.label, a: va, b: vb, delta, relative, judgement: judge(delta, m.better) };
    });
    steps.push({
      index: sa.index,
      label: sa.label,
      verdict_a: sa.verdict,
      verdict_b: sb.verdict,
      params_differ: paramsDiffer(sa, sb),
      untrusted: untrustedOf(sa, sb),
      cells,
    });
  }
  return { caveats: runCaveats(a, b), steps };
}
