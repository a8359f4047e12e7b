/**
 * The recommended-capacity table of seed 002 §7, computed from a run.
 *
 * For each §7 dimension the run measured (its driver took at least two values on steps
 * that count as server evidence), the recommended value is the smaller of
 *   (a) where the fitted resource line crosses its safe line (CPU 70 %, memory 85 %), and
 *   (b) the highest stable step below the first degraded or broken one (knee.safe),
 * so it is never above a stable step actually measured (docs/CAPACITY.md "One dimension
 * in one run"). Join rate has a third bound: the predicted ceiling db_pool ÷ check time times a
 * headroom (seed §4: ceiling 125/s, red line 60/s; §8: 375/s → 180/s, about half).
 */
import type { StepResult } from '../result/result.js';
import {
  FIT_SPECS,
  crossingX,
  fitSteps,
  isLinear,
  type FitId,
  type FitOptions,
  type FitResult,
} from './fit.js';
import { DASH, fmtBytes, fmtInt, fmtMs, fmtPct, fmtRate, floorSig } from './format.js';
import { findKnee, orderAlong, type Knee, type KneePoint } from './knee.js';
import { STEP_METRICS, poolOverCheckPerS, type StepMetricName } from './metrics.js';
import { isJudged } from './verdict.js';
import { isLowerBound, LIMIT_KIND_NAME, type Limit } from './limit.js';
import {
  factorOfLimit,
  limitContextOf,
  limitOfStep,
  memoryLimit,
  type LimitingFactor,
  type LimitRun,
  type StepLimitContext,
} from './step-limit.js';

export interface SafeLines {
  /** Server CPU % of the instance's vCPUs. Seed §1.2: 70 %. */
  cpu_pct: number;
  /**
   * Server memory % of the instance's memory. docs/CAPACITY.md "One dimension in one run": 85 %.
   */
  mem_pct: number;
}

export const DEFAULT_SAFE_LINES: SafeLines = { cpu_pct: 70, mem_pct: 85 };

/** Share of the predicted join ceiling used as the recommended join rate (seed §4, §8). */
export const DEFAULT_JOIN_HEADROOM = 0.5;

export { factorOfLimit, limitingFactorOfStep, type LimitingFactor } from './step-limit.js';

export type CapacityUnit = 'connections' | 'per_s' | 'bytes' | 'members' | 'subscribers';

/**
 * Which rule produced a row's value (docs/CAPACITY.md): the fitted resource line at its safe
 * line, the highest stable step below the first non-stable one, the join pool's ceiling times
 * the headroom, or — no limit reached — the highest stable step as a lower bound.
 */
export type CapacityRule =
  'safe-line fit' | 'knee' | 'pool headroom' | 'highest stable (lower bound)' | 'none';

export const CAPACITY_RULE_TEXT: Record<CapacityRule, string> = {
  'safe-line fit': 'where the fitted resource line crosses its safe line',
  knee: 'highest stable step below the first step that was not stable',
  'pool headroom': 'predicted auth-pool ceiling (db_pool ÷ check time) × join headroom',
  'highest stable (lower bound)':
    'no limit reached: the highest stable step measured is a lower bound',
  none: 'no stable step measured',
};

export interface CapacityDimension {
  /** Row number in seed 002 §7. */
  no: number;
  id: string;
  label: string;
  scenarios: readonly string[];
  /** The load each step asked for; the knee orders steps by it. */
  driver: StepMetricName;
  /** The measured figure reported as the capacity (equal to the driver on stable steps). */
  value: StepMetricName;
  unit: CapacityUnit;
  fit?: FitId;
}

/** Seed 002 §7, one entry per row. */
export const CAPACITY_DIMENSIONS: readonly CapacityDimension[] = [
  {
    no: 1,
    id: 'public_connections',
    label: 'Public broadcast — concurrent connections',
    scenarios: ['broadcast-public'],
    driver: 'connections_target',
    value: 'connections',
    unit: 'connections',
    fit: 'memory_vs_connections',
  },
  {
    no: 2,
    id: 'private_connections',
    label: 'Private broadcast — concurrent connections',
    scenarios: ['broadcast-private'],
    driver: 'connections_target',
    value: 'connections',
    unit: 'connections',
    fit: 'memory_vs_connections',
  },
  {
    no: 3,
    id: 'public_deliveries',
    label: 'Public broadcast — deliveries/s',
    scenarios: ['broadcast-public'],
    driver: 'expected_per_s',
    value: 'delivered_per_s',
    unit: 'per_s',
    fit: 'cpu_vs_deliveries',
  },
  {
    no: 4,
    id: 'private_sends',
    label: 'Private broadcast — sends/s',
    scenarios: ['broadcast-private'],
    driver: 'send_rate',
    value: 'sent_per_s',
    unit: 'per_s',
    fit: 'cpu_vs_sends',
  },
  {
    no: 5,
    id: 'private_deliveries',
    label: 'Private broadcast — deliveries/s',
    scenarios: ['broadcast-private'],
    driver: 'expected_per_s',
    value: 'delivered_per_s',
    unit: 'per_s',
    fit: 'cpu_vs_deliveries',
  },
  {
    no: 6,
    id: 'write_only_sends',
    label: 'Write only (no receivers) — acknowledged sends/s',
    scenarios: ['write-only'],
    driver: 'send_rate',
    value: 'acked_per_s',
    unit: 'per_s',
    fit: 'cpu_vs_sends',
  },
  {
    no: 7,
    id: 'join_rate',
    label: 'Connection / channel join rate',
    scenarios: ['join-rate'],
    driver: 'join_rate',
    value: 'joins_per_s',
    unit: 'per_s',
  },
  {
    no: 8,
    id: 'message_size',
    label: 'Message size',
    scenarios: ['payload-size'],
    driver: 'payload_bytes',
    value: 'payload_bytes',
    unit: 'bytes',
  },
  {
    no: 9,
    id: 'cdc_subscribers',
    label: 'CDC subscriptions per tenant',
    scenarios: ['postgres-changes'],
    driver: 'cdc_subscribers',
    value: 'cdc_subscribers',
    unit: 'subscribers',
  },
  {
    no: 10,
    id: 'cdc_changes',
    label: 'CDC — changes/s',
    scenarios: ['postgres-changes'],
    driver: 'cdc_changes_per_s',
    value: 'cdc_changes_per_s',
    unit: 'per_s',
  },
  {
    no: 11,
    id: 'presence_members',
    label: 'Presence — members per topic',
    scenarios: ['presence'],
    driver: 'presence_members',
    value: 'presence_members',
    unit: 'members',
  },
  {
    no: 12,
    id: 'presence_deliveries',
    label: 'Presence — deliveries/s',
    scenarios: ['presence'],
    driver: 'presence_load',
    value: 'presence_deliveries_per_s',
    unit: 'per_s',
  },
];

export interface CapacityOptions {
  safe_lines?: Partial<SafeLines>;
  /** The run's settings a step's limit is worded with (SLO, built-in server, rtcap's OS limits). */
  limit_context?: Omit<StepLimitContext, 'safe'>;
  join_headroom?: number;
  fit?: FitOptions;
}

/**
 * What a row of seed 002 §7 says, whether from one run (CapacityRow) or a campaign's runs together
 * (capacity/types CapacityTableRow).
 */
export interface CapacityValue {
  /** Row number in seed 002 §7. */
  no: number;
  id: string;
  dimension: string;
  unit: CapacityUnit;
  /** The recommended value, unrounded; null when there is none. */
  value: number | null;
  /**
   * Rounded down for reading: "≤ 21,200"; a limit never reached is a lower bound: "≥ 28,600/s, no
   * limit reached".
   */
  display: string;
  /**
   * upper: the value is a limit; lower: no limit was reached, the instance carries at least this.
   */
  bound: 'upper' | 'lower' | null;
}

export interface CapacityRow extends CapacityValue {
  rule: CapacityRule;
  limiting_factor: LimitingFactor;
  /** What stopped the row, whole (model/limit); limiting_factor is its short tag. */
  limit: Limit;
  /** One line: the step and the fit behind the value. */
  evidence: string;
  /** StepResult.index values the value rests on. */
  evidence_steps: number[];
  fit: FitResult | null;
  /** Driver value where the fit meets the safe line, if it does. */
  fit_crossing: number | null;
  knee: Knee;
  /** Other rows of this table whose driver rose with this one: the limit may be theirs. */
  covaries_with: string[];
}

/** A capacity figure; `floor` rounds down to 3 significant figures for the value column. */
export function formatCapacityValue(
  value: number | null,
  unit: CapacityUnit,
  floor = false,
): string {
  if (value === null) return DASH;
  const v = floor && unit !== 'bytes' ? floorSig(value, 3) : value;
  switch (unit) {
    case 'per_s':
      return fmtRate(v);
    case 'bytes':
      return fmtBytes(v);
    default:
      return fmtInt(v);
  }
}

/** A dimension counts as measured when its driver took two or more values on server evidence. */
function driverVaried(steps: readonly StepResult[], driver: StepMetricName): boolean {
  const values = new Set<number>();
  for (const s of steps) {
    if (!isJudged(s.verdict)) continue;
    const v = STEP_METRICS[driver](s);
    if (v !== null) values.add(v);
  }
  return values.size >= 2;
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
 * Failed steps another dimension explains: the step did not go beyond what this driver
 * carried stably elsewhere in the run, and it did go beyond what another driver carried.
 * Seed §2.1: the 2,000 × 2 room step at 10,000 sends/s broke with 8,100 deliveries/s, below
 * the 17,200/s carried by the 500 × 8 step — its failure belongs to sends/s, not deliveries/s.
 * With no other dimension to blame, a failure always counts (a repeat that failed is not noise).
 */
export function attributedElsewhere(
  steps: readonly StepResult[],
  dim: CapacityDimension,
  others: readonly CapacityDimension[],
): Set<number> {
  const out = new Set<number>();
  const stable = steps.filter((s) => s.verdict === 'stable');
  const maxStable = (d: StepMetricName) => {
    const vs = stable.map((s) => STEP_METRICS[d](s)).filter((v): v is number => v !== null);
    return vs.length ? Math.max(...vs) : null;
  };
  const ownMax = maxStable(dim.driver);
  if (ownMax === null) return out;
  const otherMax = others.map((o) => ({ o, max: maxStable(o.driver) }));
  for (const s of steps) {
    if (s.verdict !== 'degraded' && s.verdict !== 'broken') continue;
    const v = STEP_METRICS[dim.driver](s);
    if (v === null || v > ownMax) continue;
    const beyondOther = otherMax.some(({ o, max }) => {
      const ov = STEP_METRICS[o.driver](s);
      return ov !== null && max !== null && ov > max;
    });
    if (beyondOther) out.add(s.index);
  }
  return out;
}

interface Candidate {
  value: number;
  limit: Limit;
  rule: CapacityRule;
  evidence: string;
  steps: number[];
}

/**
 * (b) the highest stable step before anything went wrong, limited by what the next step
 * showed; a limit that stopped the measurement, not the server (this machine's, the
 * generator's), leaves the value a lower bound.
 */
function kneeCandidate(
  steps: readonly StepResult[],
  dim: CapacityDimension,
  knee: Knee,
  measured: number,
  ctx: StepLimitContext,
): Candidate {
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
function displayOf(rounded: string, c: Candidate): string {
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

function noStableRow(
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
  const first = orderAlong(steps, dim.driver).find((p) => isJudged(p.verdict));
  const step = first ? steps.find((s) => s.index === first.step) : undefined;
  return {
    value: null,
    display: DASH,
    bound: null,
    rule: 'none',
    limiting_factor: 'no stable step',
    limit: { kind: 'no-stable-step' },
    evidence: first
      ? `no stable step; the lowest, ${describeStep(step, first, dim)}, already failed`
      : 'no step counts as server evidence',
    evidence_steps: first ? [first.step] : [],
  };
}

/** Join rate: the pool's predicted ceiling with headroom (seed §4, §8). */
function poolCandidate(steps: readonly StepResult[], headroom: number): Candidate | null {
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

export function capacityRow(
  steps: readonly StepResult[],
  dim: CapacityDimension,
  opts: CapacityOptions = {},
  others: readonly CapacityDimension[] = [],
): CapacityRow {
  const safeLines: SafeLines = { ...DEFAULT_SAFE_LINES, ...opts.safe_lines };
  const ctx: StepLimitContext = { ...opts.limit_context, safe: safeLines };
  const knee = findKnee(steps, dim.driver, {
    attributedElsewhere: attributedElsewhere(steps, dim, others),
  });
  const fit = dim.fit ? fitSteps(steps, FIT_SPECS[dim.fit], opts.fit) : null;
  const safeLine =
    fit?.spec.resource === 'memory'
      ? safeLines.mem_pct
      : fit?.spec.resource === 'cpu'
        ? safeLines.cpu_pct
        : null;
  // A fit with no linear relation (low R²) predicts nothing: no crossing.
  const crossing =
    fit?.fit && isLinear(fit.fit) && safeLine !== null ? crossingX(fit.fit, safeLine) : null;
  const base = {
    no: dim.no,
    id: dim.id,
    dimension: dim.label,
    unit: dim.unit,
    fit,
    fit_crossing: crossing,
    knee,
    covaries_with: [] as string[],
  };
  if (!knee.safe) return { ...base, ...noStableRow(steps, dim) };

  const safeStep = steps.find((s) => s.index === knee.safe!.step);
  // The capacity is the measured figure of the safe step (its driver is what it asked for).
  const measured = (safeStep && STEP_METRICS[dim.value](safeStep)) ?? knee.safe.value;
  const candidates: Candidate[] = [kneeCandidate(steps, dim, knee, measured, ctx)];

  // (a) the fitted resource line at its safe line.
  if (fit?.fit && crossing !== null && safeLine !== null) {
    // Memory % of a cgroup tighter than the instance is this machine's limit (step-limit).
    const lastFitted = steps.find((s) => s.index === fit.fit!.points.at(-1)?.step);
    const limit: Limit =
      fit.spec.resource === 'memory'
        ? memoryLimit(lastFitted?.server?.basis, null, ctx)
        : { kind: 'server-cpu', cpu_pct: null, safe_pct: safeLine };
    const where =
      crossing < fit.fit.x_min
        ? ', extrapolated below the lowest fitted step'
        : crossing > fit.fit.x_max
          ? ', extrapolated beyond the fitted steps'
          : '';
    candidates.push({
      value: Math.max(0, crossing),
      limit,
      rule: 'safe-line fit',
      evidence: `${fit.text} reaches ${fmtPct(safeLine, 0)} at ${formatCapacityValue(crossing, dim.unit)}${where}`,
      steps: fit.fit.points.map((p) => p.step),
    });
  }
  const pool =
    dim.id === 'join_rate'
      ? poolCandidate(steps, opts.join_headroom ?? DEFAULT_JOIN_HEADROOM)
      : null;
  if (pool) candidates.push(pool);

  const best = candidates.reduce((a, b) => (b.value < a.value ? b : a));
  const alternatives = candidates.filter((c) => c !== best).map((c) => c.evidence);
  const evidence = [best.evidence, ...alternatives.map((o) => `(also: ${o})`)].join(' ');
  // A limit never reached is a lower bound, never printed as an upper one (seed §7 row 6).
  // So is one this machine set (a cgroup's memory limit reached on the fitted line).
  const lower = best.rule === 'highest stable (lower bound)' || isLowerBound(best.limit);
  return {
    ...base,
    value: best.value,
    display: displayOf(formatCapacityValue(best.value, dim.unit, true), best),
    bound: lower ? 'lower' : 'upper',
    rule: best.rule,
    limiting_factor: factorOfLimit(best.limit),
    limit: best.limit,
    evidence,
    evidence_steps: [...new Set(best.steps)],
  };
}

/**
 * One row per §7 dimension of the run's scenario that the run measured. Scenarios without
 * §7 rows (mixed) give none; a run whose driver never varied gives none either, since one
 * load level shows no limit.
 */
export function capacityTable(
  run: LimitRun & { profile: { scenario: string }; steps: readonly StepResult[] },
  options: CapacityOptions = {},
): CapacityRow[] {
  const opts = { ...options, limit_context: options.limit_context ?? limitContextOf(run) };
  const measured = CAPACITY_DIMENSIONS.filter(
    (d) => d.scenarios.includes(run.profile.scenario) && driverVaried(run.steps, d.driver),
  );
  const rows = measured.map((d) =>
    capacityRow(
      run.steps,
      d,
      opts,
      measured.filter((o) => o !== d),
    ),
  );
  // Two drivers that rose together (a connection sweep at a fixed send rate also raises
  // deliveries/s) share one knee: say so, the limit may belong to the other dimension.
  for (const row of rows) {
    const dim = measured.find((d) => d.id === row.id)!;
    const together = measured.filter(
      (o) => o !== dim && sameOrder(run.steps, dim.driver, o.driver),
    );
    row.covaries_with = together.map((o) => o.id);
    if (together.length > 0) {
      row.evidence += ` (varied together with ${together.map((o) => o.label).join(', ')}: the limit may belong to ${together.length === 1 ? 'it' : 'them'})`;
    }
  }
  return rows;
}

function sameOrder(steps: readonly StepResult[], a: StepMetricName, b: StepMetricName): boolean {
  const pairs = steps
    .filter((s) => isJudged(s.verdict))
    .map((s) => [STEP_METRICS[a](s), STEP_METRICS[b](s)] as const)
    .filter((p): p is readonly [number, number] => p[0] !== null && p[1] !== null);
  if (pairs.length < 2) return false;
  for (let i = 0; i < pairs.length; i++) {
    for (let j = i + 1; j < pairs.length; j++) {
      const da = Math.sign(pairs[j][0] - pairs[i][0]);
      const db = Math.sign(pairs[j][1] - pairs[i][1]);
      if (da !== db) return false;
    }
  }
  return true;
}
