/**
 * The recommended-capacity table of docs/METHOD.md §7, computed from a run.
 *
 * For each docs/METHOD.md §7 dimension the run measured (its driver took at least two values on
 * steps that count as server evidence), the recommended value is the smaller of
 *   (a) where the fitted resource line crosses its safe line (CPU 70 %, memory 85 %), and
 *   (b) the highest stable step below the first degraded or broken one (knee.safe),
 * so it is never above a stable step actually measured (docs/CAPACITY.md "One dimension
 * in one run"). Join rate has a third bound: the predicted ceiling db_pool ÷ check time times a
 * headroom (docs/METHOD.md §4: ceiling 125/s, red line 60/s; docs/METHOD.md §8: 375/s → 180/s,
 * about half).
 */
import type { StepResult } from '../result/result.js';
import { FIT_SPECS, crossingX, fitSteps, isLinear, type FitResult } from './fit.js';
import { findKnee } from './knee.js';
import { STEP_METRICS } from './metrics.js';
import { isLowerBound } from './limit.js';
import {
  factorOfLimit,
  limitContextOf,
  type LimitRun,
  type StepLimitContext,
} from './step-limit.js';
import {
  CAPACITY_DIMENSIONS,
  formatCapacityValue,
  type CapacityDimension,
} from './capacity-dimensions.js';
import {
  DEFAULT_JOIN_HEADROOM,
  DEFAULT_SAFE_LINES,
  type CapacityOptions,
  type CapacityRow,
  type SafeLines,
} from './capacity-row.js';
import {
  displayOf,
  fitCandidate,
  kneeCandidate,
  noStableRow,
  poolCandidate,
  type Candidate,
} from './capacity-candidates.js';
import { attributedElsewhere, driverVaried, sameOrder } from './capacity-drivers.js';

/** The safe line a fit's resource is held to: memory %, CPU %, or none for other fits. */
function safeLineOf(fit: FitResult | null, safeLines: SafeLines): number | null {
  if (fit?.spec.resource === 'memory') return safeLines.mem_pct;
  if (fit?.spec.resource === 'cpu') return safeLines.cpu_pct;
  return null;
}

/**
 * Where the fitted line meets its safe line; a fit with no linear relation (low R²) predicts
 * none.
 */
function fitCrossing(fit: FitResult | null, safeLine: number | null): number | null {
  return fit?.fit && isLinear(fit.fit) && safeLine !== null ? crossingX(fit.fit, safeLine) : null;
}

/** The smallest candidate is the row's value; the others are quoted after its evidence. */
function chosenRow(
  candidates: readonly Candidate[],
  dim: CapacityDimension,
): Omit<CapacityRow, keyof RowBase> {
  const best = candidates.reduce((a, b) => (b.value < a.value ? b : a));
  const alternatives = candidates.filter((c) => c !== best).map((c) => c.evidence);
  const evidence = [best.evidence, ...alternatives.map((o) => `(also: ${o})`)].join(' ');
  // A limit never reached is a lower bound, never printed as an upper one
  // (docs/METHOD.md §7 row 6). So is one this machine set (a cgroup's memory limit reached on the
  // fitted line).
  const lower = best.rule === 'highest stable (lower bound)' || isLowerBound(best.limit);
  return {
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

type RowBase = Pick<
  CapacityRow,
  'no' | 'id' | 'dimension' | 'unit' | 'fit' | 'fit_crossing' | 'knee' | 'covaries_with'
>;

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
  const safeLine = safeLineOf(fit, safeLines);
  const crossing = fitCrossing(fit, safeLine);
  const base: RowBase = {
    no: dim.no,
    id: dim.id,
    dimension: dim.label,
    unit: dim.unit,
    fit,
    fit_crossing: crossing,
    knee,
    covaries_with: [],
  };
  if (!knee.safe) return { ...base, ...noStableRow(steps, dim) };

  const safeStep = steps.find((s) => s.index === knee.safe!.step);
  // The capacity is the measured figure of the safe step (its driver is what it asked for).
  const measured = (safeStep && STEP_METRICS[dim.value](safeStep)) ?? knee.safe.value;
  const row = { steps, dim, ctx };
  const candidates: Candidate[] = [kneeCandidate(row, knee, measured)];
  // (a) the fitted resource line at its safe line.
  const fitted =
    fit && crossing !== null && safeLine !== null
      ? fitCandidate(row, fit, { crossing, safeLine })
      : null;
  if (fitted) candidates.push(fitted);
  const pool =
    dim.id === 'join_rate'
      ? poolCandidate(steps, opts.join_headroom ?? DEFAULT_JOIN_HEADROOM)
      : null;
  if (pool) candidates.push(pool);
  return { ...base, ...chosenRow(candidates, dim) };
}

/**
 * One row per docs/METHOD.md §7 dimension of the run's scenario that the run measured. Scenarios
 * without docs/METHOD.md §7 rows (mixed) give none; a run whose driver never varied gives none
 * either, since one load level shows no limit.
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
