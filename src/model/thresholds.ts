/**
 * Pass/fail thresholds in k6's spirit (issue 5 §6): `p95_ms < 200`, `delivery_rate >= 0.999`,
 * `errors == 0`. A threshold names a step figure from STEP_METRICS, so its units are in its
 * name. Against a run it must hold on every step: "p95 under 200 ms" for a run means under
 * 200 ms at every load level, and `errors == 0` on every step is `errors == 0` in total.
 *
 * A figure that was not measured fails the threshold: a gate must not pass on a missing
 * number (DESIGN.md: missing is null, never 0).
 */
import type { StepResult } from '../report/result.js';
import { STEP_METRICS, isStepMetricName, type StepMetricName } from './metrics.js';

export type ThresholdOp = '<' | '<=' | '>' | '>=' | '==' | '!=';

export interface Threshold {
  /** The expression as written. */
  expression: string;
  metric: StepMetricName;
  op: ThresholdOp;
  value: number;
}

export class ThresholdError extends Error {
  constructor(
    readonly expression: string,
    detail: string,
  ) {
    super(`threshold ${JSON.stringify(expression)}: ${detail}`);
    this.name = 'ThresholdError';
  }
}

/** Metrics that are ratios 0..1; `99.9%` on them means 0.999. */
const RATIO_METRICS: ReadonlySet<StepMetricName> = new Set(['delivery_rate', 'offered_ratio']);

const EXPR = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(<=|>=|==|!=|<|>)\s*(-?[0-9][0-9_]*(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?)\s*(%?)\s*$/i;

export function parseThreshold(expression: string): Threshold {
  const m = EXPR.exec(expression);
  if (!m) {
    throw new ThresholdError(expression, 'expected "<metric> <op> <number>", e.g. "p95_ms < 200"; ops: < <= > >= == !=');
  }
  const [, name, op, numText, pct] = m;
  if (!isStepMetricName(name)) {
    const known = Object.keys(STEP_METRICS);
    const near = known.filter((k) => k.startsWith(name) || name.startsWith(k.split('_')[0]));
    const hint = near.length ? `; did you mean ${near.slice(0, 3).join(', ')}?` : '';
    throw new ThresholdError(expression, `unknown metric "${name}"${hint} (known: ${known.join(', ')})`);
  }
  let value = Number(numText.replace(/_/g, ''));
  if (!Number.isFinite(value)) throw new ThresholdError(expression, `not a number: ${numText}`);
  if (pct) {
    if (RATIO_METRICS.has(name)) value /= 100;
    else if (!name.endsWith('_pct')) {
      throw new ThresholdError(expression, `"%" only applies to ratio or _pct metrics, not ${name}`);
    }
  }
  return { expression: expression.trim(), metric: name, op: op as ThresholdOp, value };
}

export function compare(actual: number, op: ThresholdOp, bound: number): boolean {
  switch (op) {
    case '<':
      return actual < bound;
    case '<=':
      return actual <= bound;
    case '>':
      return actual > bound;
    case '>=':
      return actual >= bound;
    case '==':
      return actual === bound;
    case '!=':
      return actual !== bound;
  }
}

export interface StepThresholdResult {
  step: number;
  /** null: not measured, which fails. */
  actual: number | null;
  pass: boolean;
}

export interface ThresholdResult {
  threshold: Threshold;
  pass: boolean;
  /** Per step, in step order. */
  steps: StepThresholdResult[];
  /** The step furthest on the wrong side (or closest to the bound when all pass). */
  worst: StepThresholdResult | null;
  /** One line: "p95_ms < 200: fail — step 3: 412, step 4: not measured". */
  summary: string;
}

export function evaluateOnStep(t: Threshold | string, step: StepResult): StepThresholdResult {
  const th = typeof t === 'string' ? parseThreshold(t) : t;
  const actual = STEP_METRICS[th.metric](step);
  return { step: step.index, actual, pass: actual !== null && compare(actual, th.op, th.value) };
}

/** Signed distance past the bound: positive when failing, larger is worse. */
function badness(th: Threshold, actual: number | null): number {
  if (actual === null) return Infinity;
  switch (th.op) {
    case '<':
    case '<=':
      return actual - th.value;
    case '>':
    case '>=':
      return th.value - actual;
    case '==':
      return Math.abs(actual - th.value);
    case '!=':
      return actual === th.value ? 1 : -1;
  }
}

function fmt(v: number | null): string {
  if (v === null) return 'not measured';
  return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(6)));
}

/** A threshold on a run: every step must pass. A run with no steps fails (nothing shown). */
export function evaluateOnRun(t: Threshold | string, run: { steps: readonly StepResult[] }): ThresholdResult {
  const th = typeof t === 'string' ? parseThreshold(t) : t;
  const steps = run.steps.map((s) => evaluateOnStep(th, s));
  const pass = steps.length > 0 && steps.every((s) => s.pass);
  let worst: StepThresholdResult | null = null;
  for (const s of steps) if (!worst || badness(th, s.actual) > badness(th, worst.actual)) worst = s;
  const failing = steps.filter((s) => !s.pass);
  const summary =
    steps.length === 0
      ? `${th.expression}: fail — the run has no steps`
      : pass
        ? `${th.expression}: pass (worst: step ${worst!.step}: ${fmt(worst!.actual)})`
        : `${th.expression}: fail — ${failing.map((s) => `step ${s.step}: ${fmt(s.actual)}`).join(', ')}`;
  return { threshold: th, pass, steps, worst, summary };
}

/** All thresholds of a profile; throws ThresholdError naming the first unparsable one. */
export function evaluateThresholds(
  expressions: readonly string[],
  run: { steps: readonly StepResult[] },
): { pass: boolean; results: ThresholdResult[] } {
  const parsed = expressions.map(parseThreshold);
  const results = parsed.map((t) => evaluateOnRun(t, run));
  return { pass: results.every((r) => r.pass), results };
}
