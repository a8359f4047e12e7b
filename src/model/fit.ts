/**
 * Linear fits of a server resource against a load driver (docs/CAPACITY.md; docs/METHOD.md §1.1,
 * §1.2, §4, §5). Least squares with R² from simple-statistics, printed as docs/METHOD.md §1.2
 * writes its fit: "CPU ≈ 6.5 % + 2.35 pp × deliveries/s ÷ 1000 (R² 0.99, 4 steps)".
 *
 * Which steps a fit uses: never generator-bound ones (they are not server capacity,
 * docs/VERDICTS.md), never incomplete ones, only those with both figures
 * present, and by default only `stable` ones. Degraded and broken steps are off the linear
 * part: the server is saturated and queueing (docs/METHOD.md §1.2: CPU plateaus at 94.8 % while
 * deliveries climb from 40,000 to 45,800/s). Fitting the seed's six docs/METHOD.md §1.2 points
 * gives
 * 12.3 % + 2.01 pp (R² 0.96), a line that fits neither regime; its four stable points give
 * 5.5 % + 2.41 pp (R² 0.9995). `FitOptions.verdicts` widens the set when wanted.
 */
import { linearRegression, linearRegressionLine, rSquared } from 'simple-statistics';
import type { StepResult, Verdict } from '../result/result.js';
import { fmtInt, INCOMPLETE_LABEL, leadingValue, signedTerm } from './format.js';
import { STEP_METRICS, type StepMetricName } from './metrics.js';
import { isJudged } from './verdict.js';

export interface FitPoint {
  x: number;
  y: number;
  /** StepResult.index the point came from: the evidence. */
  step: number;
}

export interface LinearFit {
  intercept: number;
  /** Per unit of x (not per 1000): multiply by the spec's x_divisor to print. */
  slope: number;
  r2: number;
  n: number;
  x_min: number;
  x_max: number;
  points: FitPoint[];
  /**
   * Why the line is not a model of the resource, when it is not one: a resource that falls as
   * its load rises (a negative cost per unit) is not a cost, whatever its R² says — something
   * else moved between the steps. A refused fit is printed with its reason, never as a formula,
   * and draws no line and gives no safe-line crossing (isLinear is false).
   */
  refused?: string;
}

/**
 * Least squares over the points; null with fewer than two points or when x never varies
 * (a line is not determined). Two points give R² = 1 by construction.
 */
export function leastSquares(points: FitPoint[]): LinearFit | null {
  if (points.length < 2) return null;
  const xs = points.map((p) => p.x);
  const xMin = Math.min(...xs);
  const xMax = Math.max(...xs);
  if (xMax === xMin) return null;
  const pairs = points.map((p) => [p.x, p.y]);
  const { m, b } = linearRegression(pairs);
  let r2 = rSquared(pairs, linearRegressionLine({ m, b }));
  // rSquared divides by the variance of y; a flat y that the line matches exactly is a perfect fit.
  if (!Number.isFinite(r2)) r2 = 1;
  return { intercept: b, slope: m, r2, n: points.length, x_min: xMin, x_max: xMax, points };
}

/** The fitted y at x. */
export function predict(fit: LinearFit, x: number): number {
  return fit.intercept + fit.slope * x;
}

/**
 * The driver value where the line reaches y (e.g. CPU 70 %); null when the line never
 * rises to it (slope ≤ 0) — a flat or falling resource does not limit the driver.
 */
export function crossingX(fit: LinearFit, y: number): number | null {
  if (!(fit.slope > 0)) return null;
  return (y - fit.intercept) / fit.slope;
}

export type FitId =
  | 'memory_vs_connections'
  | 'cpu_vs_deliveries'
  | 'cpu_vs_sends'
  | 'presence_deliveries_vs_load'
  | 'join_ceiling_vs_pool_over_check';

export interface FitSpec {
  id: FitId;
  /** Left-hand side as printed: "Memory", "CPU". */
  y_label: string;
  /** pct: intercept in %, slope in percentage points ("pp"); per_s: both in /s. */
  y_unit: 'pct' | 'per_s';
  /** Driver as printed: "connections", "deliveries/s". */
  x_label: string;
  /** Slope printed per this many driver units (seed: "÷ 1000"); 1 prints no divisor. */
  x_divisor: number;
  x: StepMetricName;
  y: StepMetricName;
  /** The resource this fit limits, for the capacity table. */
  resource: 'memory' | 'cpu' | null;
  /** Scenarios whose runs this fit applies to. */
  scenarios: readonly string[];
}

/** The fits seed 002 makes (docs/METHOD.md §1.1, §1.2, §2, §4, §5). */
export const FIT_SPECS: Record<FitId, FitSpec> = {
  memory_vs_connections: {
    id: 'memory_vs_connections',
    y_label: 'Memory',
    y_unit: 'pct',
    x_label: 'connections',
    x_divisor: 1000,
    x: 'connections',
    y: 'mem_pct',
    resource: 'memory',
    scenarios: ['broadcast-public', 'broadcast-private', 'presence', 'postgres-changes'],
  },
  cpu_vs_deliveries: {
    id: 'cpu_vs_deliveries',
    y_label: 'CPU',
    y_unit: 'pct',
    x_label: 'deliveries/s',
    x_divisor: 1000,
    x: 'delivered_per_s',
    y: 'cpu_pct',
    resource: 'cpu',
    scenarios: ['broadcast-public', 'broadcast-private', 'payload-size'],
  },
  cpu_vs_sends: {
    id: 'cpu_vs_sends',
    y_label: 'CPU',
    y_unit: 'pct',
    x_label: 'sends/s',
    x_divisor: 1000,
    x: 'sent_per_s',
    y: 'cpu_pct',
    resource: 'cpu',
    scenarios: ['broadcast-private', 'write-only'],
  },
  presence_deliveries_vs_load: {
    id: 'presence_deliveries_vs_load',
    y_label: 'Presence deliveries/s',
    y_unit: 'per_s',
    x_label: 'members² × updates/s',
    x_divisor: 1,
    x: 'presence_load',
    y: 'presence_deliveries_per_s',
    resource: null,
    scenarios: ['presence'],
  },
  join_ceiling_vs_pool_over_check: {
    id: 'join_ceiling_vs_pool_over_check',
    y_label: 'Join ceiling',
    y_unit: 'per_s',
    x_label: 'pool ÷ check time',
    x_divisor: 1,
    x: 'pool_over_check_per_s',
    y: 'join_ceiling_per_s',
    resource: null,
    scenarios: ['join-rate'],
  },
};

export interface FitOptions {
  /** Verdicts whose steps enter the fit. Default: stable only (see the file comment).
   *  generator-bound is refused even if listed. */
  verdicts?: readonly Verdict[];
}

export interface FitResult {
  spec: FitSpec;
  fit: LinearFit | null;
  /** Steps left out, with why: the reader can check nothing was dropped silently. */
  excluded: { step: number; reason: string }[];
  /** The seed-style formula, or why there is none. */
  text: string;
}

const DEFAULT_FIT_VERDICTS: readonly Verdict[] = ['stable'];

/** Fits one spec over a run's steps. */
export function fitSteps(
  steps: readonly StepResult[],
  spec: FitSpec,
  opts: FitOptions = {},
): FitResult {
  const verdicts = (opts.verdicts ?? DEFAULT_FIT_VERDICTS).filter(isJudged);
  const points: FitPoint[] = [];
  const excluded: { step: number; reason: string }[] = [];
  for (const s of steps) {
    if (s.verdict === 'generator-bound') {
      excluded.push({ step: s.index, reason: 'generator-bound: not server capacity' });
      continue;
    }
    if (s.verdict === 'inconclusive') {
      excluded.push({ step: s.index, reason: 'inconclusive: nothing measured' });
      continue;
    }
    if (!verdicts.includes(s.verdict)) {
      excluded.push({ step: s.index, reason: `${s.verdict}: off the linear part` });
      continue;
    }
    if (s.complete === false) {
      excluded.push({ step: s.index, reason: INCOMPLETE_LABEL });
      continue;
    }
    const x = STEP_METRICS[spec.x](s);
    const y = STEP_METRICS[spec.y](s);
    if (x === null || y === null) {
      excluded.push({ step: s.index, reason: `${x === null ? spec.x : spec.y} not measured` });
      continue;
    }
    points.push({ x, y, step: s.index });
  }
  const fit = leastSquares(points);
  if (fit) {
    const refused = wrongSign(fit, spec);
    if (refused) fit.refused = refused;
  }
  return { spec, fit, excluded, text: fit ? formatFit(fit, spec) : noFitText(spec, points) };
}

/**
 * A resource or a rate that falls as its driver rises: the fit says the load costs less than
 * nothing, so it is refused with the slope it found. Only lines that would otherwise be shown
 * (R² at least MIN_LINEAR_R2) are judged; below that there is no line to refuse.
 */
export function wrongSign(fit: LinearFit, spec: FitSpec): string | null {
  if (fit.r2 < MIN_LINEAR_R2 || fit.slope >= 0) return null;
  const slope = fit.slope * spec.x_divisor;
  const unit = spec.y_unit === 'pct' ? ' pp' : '/s';
  const per = spec.x_divisor === 1 ? spec.x_label : `${fmtInt(spec.x_divisor)} ${spec.x_label}`;
  return `wrong sign: ${spec.y_label} falls as ${spec.x_label} rises (${leadingValue(slope, 2)}${unit} per ${per}), a negative cost per unit of load`;
}

function noFitText(spec: FitSpec, points: FitPoint[]): string {
  const what = `${spec.y_label} vs ${spec.x_label}`;
  if (points.length < 2)
    return `${what}: no fit (${points.length} usable step${points.length === 1 ? '' : 's'}, 2 needed)`;
  return `${what}: no fit (${spec.x_label} did not vary across the ${points.length} usable steps)`;
}

/**
 * Below this R² the points show no linear relation worth a formula: such a fit is printed as
 * "no linear relation", draws no line and gives no safe-line crossing.
 */
export const MIN_LINEAR_R2 = 0.5;

/** A fit whose line may be shown and used: R² at least MIN_LINEAR_R2 and not refused. */
export function isLinear(fit: LinearFit | null | undefined): boolean {
  return !!fit && fit.r2 >= MIN_LINEAR_R2 && !fit.refused;
}

/** R² floored to two decimals so a near-perfect fit never prints as exactly 1. */
function fmtR2(r2: number): string {
  if (r2 >= 1) return '1.00';
  return (Math.floor(r2 * 100) / 100).toFixed(2);
}

/**
 * A formula as docs/METHOD.md §1.2 writes one:
 * "CPU ≈ 5.5 % + 2.41 pp × deliveries/s ÷ 1000 (R² 0.99, 4 steps)".
 * Two-point fits say so: their R² is 1 whatever the data. A fit with R² below
 * MIN_LINEAR_R2 is no formula: "CPU vs deliveries/s: no linear relation (R² 0.12 < 0.5, 4 steps)",
 * and neither is a refused one: "CPU vs deliveries/s: fit refused — wrong sign: … (R² 0.93, 4
 * steps)".
 */
export function formatFit(fit: LinearFit, spec: FitSpec): string {
  if (fit.refused) {
    return `${spec.y_label} vs ${spec.x_label}: fit refused — ${fit.refused} (R² ${fmtR2(fit.r2)}, ${fit.n} steps)`;
  }
  if (!isLinear(fit)) {
    return `${spec.y_label} vs ${spec.x_label}: no linear relation (R² ${fmtR2(Math.max(0, fit.r2))} < ${MIN_LINEAR_R2}, ${fit.n} steps)`;
  }
  const slope = fit.slope * spec.x_divisor;
  const div = spec.x_divisor === 1 ? '' : ` ÷ ${fmtInt(spec.x_divisor)}`;
  let body: string;
  if (spec.y_unit === 'pct') {
    body = `${leadingValue(fit.intercept, 1)} %${signedTerm(slope, 2)} pp × ${spec.x_label}${div}`;
  } else {
    const slopeDecimals = Math.abs(slope) >= 100 ? 0 : Math.abs(slope) >= 1 ? 2 : 3;
    body = `${leadingValue(fit.intercept, 1)}/s${signedTerm(slope, slopeDecimals)} × ${spec.x_label}${div}`;
  }
  const steps = `${fit.n} steps`;
  const caveat = fit.n === 2 ? '; two points fit any line exactly' : '';
  return `${spec.y_label} ≈ ${body} (R² ${fmtR2(fit.r2)}, ${steps}${caveat})`;
}

/** The fits that apply to a scenario, in the order of FIT_SPECS. */
export function fitsForScenario(scenario: string): FitSpec[] {
  return Object.values(FIT_SPECS).filter((s) => s.scenarios.includes(scenario));
}

/** Every applicable fit of a run (those with no usable points included, with their reason). */
export function fitRun(
  steps: readonly StepResult[],
  scenario: string,
  opts: FitOptions = {},
): FitResult[] {
  return fitsForScenario(scenario).map((spec) => fitSteps(steps, spec, opts));
}
