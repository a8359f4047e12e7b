/**
 * Private broadcast is bounded by two drivers at once (docs/METHOD.md §2.1): sends/s (authorisation
 * and the per-send write) and deliveries/s (fan-out). One line per driver cannot separate
 * them when a step moves both, so CPU is fitted on both together by least squares,
 *   CPU ≈ a + b·sends/s + c·deliveries/s,
 * and the joint bound is the region under the CPU safe line: b·sends/s + c·deliveries/s ≤ safe − a.
 * Such a fit is only a model when the steps moved the two drivers apart (else any split of the
 * cost between them fits as well: a fan-out held fixed gives 6.3 − 3.78 × sends + 1.15 ×
 * deliveries as readily as the truth) and when neither cost comes out negative; otherwise it is
 * refused with the reason (judgeJointFit). Pure: points in, fit and text out.
 */
import { MIN_LINEAR_R2 } from '../model/fit.js';
import { fmtInt, fmtNum, fmtPct, leadingValue } from '../model/format.js';

export interface TwoDriverPoint {
  x1: number;
  x2: number;
  y: number;
  /** StepResult.index, the evidence. */
  step: number;
}

export interface TwoDriverFit {
  intercept: number;
  /** Per unit of x1 and x2 (not per 1000). */
  slope1: number;
  slope2: number;
  r2: number;
  n: number;
  points: TwoDriverPoint[];
}

/** Solves the 3×3 normal equations by Gaussian elimination; null when singular. */
function solve3(m: number[][], v: number[]): number[] | null {
  const a = m.map((row, i) => [...row, v[i]]);
  for (let col = 0; col < 3; col++) {
    let pivot = col;
    for (let r = col + 1; r < 3; r++) if (Math.abs(a[r][col]) > Math.abs(a[pivot][col])) pivot = r;
    if (Math.abs(a[pivot][col]) < 1e-12) return null;
    [a[col], a[pivot]] = [a[pivot], a[col]];
    for (let r = 0; r < 3; r++) {
      if (r === col) continue;
      const f = a[r][col] / a[col][col];
      for (let c = col; c < 4; c++) a[r][c] -= f * a[col][c];
    }
  }
  return [a[0][3] / a[0][0], a[1][3] / a[1][1], a[2][3] / a[2][2]];
}

/**
 * Least squares of y on x1 and x2. Null with fewer than three points or when the drivers
 * moved together (collinear: their effects cannot be told apart, and saying so is the answer).
 */
export function fitTwoDrivers(points: readonly TwoDriverPoint[]): TwoDriverFit | null {
  if (points.length < 3) return null;
  // Scale to thousands so the normal equations stay well conditioned at 10⁴–10⁵/s.
  const k = 1000;
  let s1 = 0,
    s2 = 0,
    s11 = 0,
    s22 = 0,
    s12 = 0,
    sy = 0,
    s1y = 0,
    s2y = 0;
  for (const p of points) {
    const x1 = p.x1 / k;
    const x2 = p.x2 / k;
    s1 += x1;
    s2 += x2;
    s11 += x1 * x1;
    s22 += x2 * x2;
    s12 += x1 * x2;
    sy += p.y;
    s1y += x1 * p.y;
    s2y += x2 * p.y;
  }
  const n = points.length;
  const sol = solve3(
    [
      [n, s1, s2],
      [s1, s11, s12],
      [s2, s12, s22],
    ],
    [sy, s1y, s2y],
  );
  if (!sol) return null;
  // Relative pivot check: nearly collinear drivers give huge, meaningless slopes.
  const mean1 = s1 / n;
  const mean2 = s2 / n;
  const v1 = s11 / n - mean1 * mean1;
  const v2 = s22 / n - mean2 * mean2;
  const c12 = s12 / n - mean1 * mean2;
  if (v1 <= 0 || v2 <= 0 || 1 - (c12 * c12) / (v1 * v2) < 1e-6) return null;
  const [a, b, c] = sol;
  const meanY = sy / n;
  let ssRes = 0;
  let ssTot = 0;
  for (const p of points) {
    const f = a + (b * p.x1) / k + (c * p.x2) / k;
    ssRes += (p.y - f) ** 2;
    ssTot += (p.y - meanY) ** 2;
  }
  const r2 = ssTot === 0 ? 1 : 1 - ssRes / ssTot;
  return { intercept: a, slope1: b / k, slope2: c / k, r2, n, points: [...points] };
}

/**
 * Drivers whose squared correlation over the steps reaches this moved together (a variance
 * inflation factor of 10, the usual rule of thumb): their separate costs are not determined.
 */
export const MAX_DRIVER_R2 = 0.9;

/** Squared correlation of x1 and x2 over the points (1 when either never varied). */
export function driverR2(points: readonly TwoDriverPoint[]): number {
  const n = points.length;
  const m1 = points.reduce((a, p) => a + p.x1, 0) / n;
  const m2 = points.reduce((a, p) => a + p.x2, 0) / n;
  let v1 = 0,
    v2 = 0,
    c = 0;
  for (const p of points) {
    v1 += (p.x1 - m1) ** 2;
    v2 += (p.x2 - m2) ** 2;
    c += (p.x1 - m1) * (p.x2 - m2);
  }
  return v1 === 0 || v2 === 0 ? 1 : (c * c) / (v1 * v2);
}

export interface JointJudgement {
  /** The fit, when it is a model; null when refused or not determined. */
  fit: TwoDriverFit | null;
  /** Why there is no model: too few steps, collinear drivers, a wrong sign, no linear relation. */
  refused: string | null;
}

/** The joint fit, or why it is refused — never a formula with a negative cost or a shared one. */
export function judgeJointFit(
  points: readonly TwoDriverPoint[],
  labels: [string, string],
): JointJudgement {
  const what = `joint fit of CPU on ${labels[0]} and ${labels[1]}`;
  if (points.length < 3)
    return {
      fit: null,
      refused: `no ${what}: it needs 3 or more stable steps with CPU measured (have ${points.length})`,
    };
  const r2x = driverR2(points);
  if (r2x >= MAX_DRIVER_R2) {
    return {
      fit: null,
      refused: `${what} refused: collinear — ${labels[0]} and ${labels[1]} moved together over the ${points.length} steps (r² ${fmtNum(Math.min(r2x, 1), 3)} ≥ ${MAX_DRIVER_R2}), so their costs cannot be told apart; vary one with the other held`,
    };
  }
  const fit = fitTwoDrivers(points);
  if (!fit)
    return {
      fit: null,
      refused: `${what} refused: the drivers are not independent over the ${points.length} steps`,
    };
  const stats = `R² ${fmtNum(fit.r2, 2)}, ${fmtInt(fit.n)} steps`;
  if (fit.r2 < MIN_LINEAR_R2)
    return { fit: null, refused: `${what}: no linear relation (${stats}, R² < ${MIN_LINEAR_R2})` };
  const negative = [fit.slope1, fit.slope2]
    .map((sl, i) => ({ sl, label: labels[i] }))
    .filter((t) => t.sl < 0);
  if (negative.length > 0) {
    const terms = negative
      .map((t) => `${t.label} ${leadingValue(t.sl * 1000, 2)} pp per 1,000`)
      .join(', ');
    return {
      fit: null,
      refused: `${what} refused: wrong sign — CPU would fall as ${negative.map((t) => t.label).join(' and ')} rise${negative.length === 1 ? 's' : ''} (${terms}; ${stats}), a negative cost`,
    };
  }
  return { fit, refused: null };
}

export function predictTwo(fit: TwoDriverFit, x1: number, x2: number): number {
  return fit.intercept + fit.slope1 * x1 + fit.slope2 * x2;
}

/** Whether (x1, x2) stays under the safe line by the fit. */
export function withinJointBound(fit: TwoDriverFit, safe: number, x1: number, x2: number): boolean {
  return predictTwo(fit, x1, x2) <= safe;
}

/**
 * The fit and its joint bound as one sentence, as docs/METHOD.md §1.2 writes a fit (pp per 1000/s):
 * "CPU ≈ 5.0 % + 3.00 pp × sends/s ÷ 1000 + 2.00 pp × deliveries/s ÷ 1000 (R² 0.99, 4 steps);
 *  joint bound at 70 %: 3.00 × sends/s + 2.00 × deliveries/s (÷ 1000) ≤ 65.0".
 */
export function describeJointBound(
  fit: TwoDriverFit,
  safe: number,
  labels: [string, string],
): string {
  const b = fit.slope1 * 1000;
  const c = fit.slope2 * 1000;
  const room = safe - fit.intercept;
  const formula = `CPU ≈ ${fmtPct(fit.intercept, 1)} ${b < 0 ? '−' : '+'} ${fmtNum(Math.abs(b), 2)} pp × ${labels[0]} ÷ 1000 ${c < 0 ? '−' : '+'} ${fmtNum(Math.abs(c), 2)} pp × ${labels[1]} ÷ 1000 (R² ${fmtNum(fit.r2, 2)}, ${fmtInt(fit.n)} steps)`;
  const alone = (slope: number) =>
    slope > 0 ? fmtInt(Math.floor((room / slope) * 1000)) : 'unbounded';
  return `${formula}; joint bound at ${fmtPct(safe, 0)}: ${fmtNum(b, 2)} × ${labels[0]} + ${fmtNum(c, 2)} × ${labels[1]} (per 1000) ≤ ${fmtNum(room, 1)}, i.e. ${labels[0]} alone ≤ ${alone(b)}, ${labels[1]} alone ≤ ${alone(c)}`;
}
