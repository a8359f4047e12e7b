/**
 * The candidate values of one capacity row (docs/CAPACITY.md "One dimension in one run"): the
 * knee's highest stable step, the fitted resource line at its safe line, the join pool's ceiling
 * with headroom; the row takes the smallest. Also the row of a run with no stable step.
 */
import type { StepResult } from '../result/result.js';
import type { FitResult } from './fit.js';
import { DASH, fmtMs, fmtPct, fmtRate } from './format.js';
import { orderAlong, type Knee, type KneePoint } from './knee.js';
import { STEP_METRICS, poolOverCheckPerS } from './metrics.js';
import { isJudged } from './verdict.js';
import { serverWentAwayIn } from './verdict-broken.js';
import { isLowerBound, LIMIT_KIND_NAME, type Limit } from './limit.js';
import { limitOfStep, memoryLimit, type StepLimitContext } from './step-limit.js';
import { formatCapacityValue, type CapacityDimension } from './capacity-dimensions.js';
import type { CapacityRow, CapacityRule } from './capacity-row.js';

/** What a row's candidates are read from: the run's steps, the row's dimension, the limits. */
export interface RowInputs {
  steps: readonly StepResult[];
  dim: CapacityDimension;
  ctx: StepLimitContext;
}

export interface Candidate {
  value: number;
  limit: Limit;
  rule: CapacityRule;
  evidence: string;
  steps: number[];
}

function describeStep(step: StepResult | undefined, p: KneePoint, dim: CapacityDimension): string {
  // The measured figure where there is one (presence deliveries measured, not the
  // members² × rate the step asked for), else the driver value.
  const measured = step ? STEP_METRICS[dim.value](step) : null;
  const v = formatCapacityValue(measured ?? p.value, dim.unit);
  const bits = [`step ${p.step} (${v}, ${p.verdict}`];
  if (step) {
    if (step.server?.cpu_pct != null) bits.push(`CPU ${fmtPct(step.server.cpu_pct, 1)}`);
    if (step.server?.mem_pct != null) bits.push(`memory ${fmtPct(step.server.mem_pct, 1)}`);
    if (p.verdict === 'degraded' && step.latency_ms?.p95 != null)
      bits.push(`p95 ${fmtMs(step.latency_ms.p95)}`);
  }
  return `${bits.join(', ')})`;
}

/**
 * (b) the highest stable step before anything went wrong, limited by what the next step
 * showed; a limit that stopped the measurement, not the server (this machine's, the
 * generator's), leaves the value a lower bound.
 */
export function kneeCandidate(row: RowInputs, knee: Knee, measured: number): Candidate {
  const { steps, dim, ctx } = row;
  const byIndex = new Map(steps.map((s) => [s.index, s]));
  const safe = knee.safe!;
  const unsafe = knee.first_unsafe;
  let limit: Limit;
  let nextText: string;
  if (unsafe) {
    limit = limitOfStep(byIndex.get(unsafe.step)!, ctx);
    // The limit itself is the row's limiting factor; a lower bound says the server may do more.
    const lower = isLowerBound(limit)
      ? ': a limit of the measurement, not of the server, which may carry more'
      : '';
    nextText = `; next, ${describeStep(byIndex.get(unsafe.step), unsafe, dim)}${lower}`;
  } else if (knee.generator_bound_above.length > 0) {
    const g = knee.generator_bound_above[0];
    limit = limitOfStep(byIndex.get(g.step)!, ctx);
    nextText = `; above it step ${g.step} was generator-bound: the server may carry more`;
  } else if (knee.server_gone) {
    // A server killed or crashed reached no limit of its load: what it carried is a lower bound.
    limit = { kind: 'server-gone', step: knee.server_gone.step };
    nextText = `; then the server went away in step ${knee.server_gone.step}: no limit measured`;
  } else {
    limit = { kind: 'range-end' };
    nextText = '; no limit reached';
  }
  return {
    value: measured,
    limit,
    rule: isLowerBound(limit) ? 'highest stable (lower bound)' : 'knee',
    evidence: `highest stable ${describeStep(byIndex.get(safe.step), safe, dim)}${nextText}`,
    steps: unsafe ? [safe.step, unsafe.step] : [safe.step],
  };
}

/**
 * The value column: "≤ 21,200"; a lower bound says what stopped it ("≥ 28,600/s, no limit
 * reached").
 */
export function displayOf(rounded: string, c: Candidate): string {
  if (!isLowerBound(c.limit)) return `≤ ${rounded}`;
  switch (c.limit.kind) {
    case 'generator-bound':
      return `≥ ${rounded}, generator-bound above`;
    case 'environment':
      return `≥ ${rounded}, environment limit above`;
    case 'range-end':
      return `≥ ${rounded}, no limit reached`;
    default:
      return `≥ ${rounded}, ${LIMIT_KIND_NAME[c.limit.kind]}`;
  }
}

export function noStableRow(
  steps: readonly StepResult[],
  dim: CapacityDimension,
): Pick<
  CapacityRow,
  | 'value'
  | 'display'
  | 'bound'
  | 'rule'
  | 'limiting_factor'
  | 'limit'
  | 'evidence'
  | 'evidence_steps'
> {
  // A step in which the server went away is no evidence of a limit (model/knee).
  const gone = new Set(steps.filter(serverWentAwayIn).map((s) => s.index));
  const first = orderAlong(steps, dim.driver).find((p) => isJudged(p.verdict) && !gone.has(p.step));
  const step = first ? steps.find((s) => s.index === first.step) : undefined;
  const goneFirst = steps.find((s) => gone.has(s.index));
  return {
    value: null,
    display: DASH,
    bound: null,
    rule: 'none',
    limiting_factor: 'no stable step',
    limit: { kind: 'no-stable-step' },
    evidence: first
      ? `no stable step; the lowest, ${describeStep(step, first, dim)}, already failed`
      : goneFirst
        ? `no step counts as server evidence: the server went away in step ${goneFirst.index}`
        : 'no step counts as server evidence',
    evidence_steps: first ? [first.step] : [],
  };
}

/** Join rate: the pool's predicted ceiling with headroom (docs/METHOD.md §4, §8). */
export function poolCandidate(steps: readonly StepResult[], headroom: number): Candidate | null {
  const ceilings = steps
    .map((s) => ({ s, c: poolOverCheckPerS(s) }))
    .filter((x) => x.c !== null) as { s: StepResult; c: number }[];
  if (ceilings.length === 0) return null;
  const c = Math.min(...ceilings.map((x) => x.c));
  return {
    value: c * headroom,
    limit: { kind: 'auth-pool', ceiling_per_s: c, headroom },
    rule: 'pool headroom',
    evidence: `predicted ceiling db_pool ÷ check time = ${fmtRate(c)} × headroom ${headroom}`,
    steps: [ceilings[0].s.index],
  };
}

/**
 * (a) the fitted resource line at its safe line; memory % of a cgroup tighter than the
 * instance is this machine's limit (step-limit), so the value is then a lower bound.
 */
export function fitCandidate(
  row: RowInputs,
  fit: FitResult,
  at: { crossing: number; safeLine: number },
): Candidate | null {
  const { steps, dim, ctx } = row;
  const { crossing, safeLine } = at;
  const line = fit.fit;
  if (!line) return null;
  const lastFitted = steps.find((s) => s.index === line.points.at(-1)?.step);
  const limit: Limit =
    fit.spec.resource === 'memory'
      ? memoryLimit(lastFitted?.server?.basis, null, ctx)
      : { kind: 'server-cpu', cpu_pct: null, safe_pct: safeLine };
  const where =
    crossing < line.x_min
      ? ', extrapolated below the lowest fitted step'
      : crossing > line.x_max
        ? ', extrapolated beyond the fitted steps'
        : '';
  return {
    value: Math.max(0, crossing),
    limit,
    rule: 'safe-line fit',
    evidence: `${fit.text} reaches ${fmtPct(safeLine, 0)} at ${formatCapacityValue(crossing, dim.unit)}${where}`,
    steps: line.points.map((p) => p.step),
  };
}
