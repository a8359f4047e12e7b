/**
 * Pass/fail thresholds in k6's spirit: `p95_ms < 200`,
 * `delivery_rate >= 0.999`, `errors == 0`, narrowed by selectors (`p95_ms{step:3} < 200`,
 * `p95_ms{scenario:presence} < 300`) or on a capacity row (`capacity.public_connections >=
 * 18000`); model/figure-ref.ts reads the figure part. A step threshold names a figure from
 * STEP_METRICS, so its units are in its name, and must hold on every step it selects: "p95
 * under 200 ms" for a run means under 200 ms at every load level.
 *
 * A figure that was not measured fails the threshold: a gate must not pass on a missing
 * number (docs/FIGURES.md "Measurement rules": missing is null, never 0). So does a threshold
 * that selects nothing.
 */
import type { StepResult } from '../result/result.js';
import { FigureError, figureText, parseFigure, selectSteps, type FigureRef } from './figure-ref.js';
import { STEP_METRICS, type StepMetricName } from './metrics.js';

export type ThresholdOp = '<' | '<=' | '>' | '>=' | '==' | '!=';

export interface Threshold {
  /** The expression as written. */
  expression: string;
  figure: FigureRef;
  op: ThresholdOp;
  value: number;
}

/** A profile's threshold entry: the expression, or k6's object form with abort_on_fail. */
export type ThresholdSpec = string | { threshold: string; abort_on_fail?: boolean };

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
export const RATIO_METRICS: ReadonlySet<StepMetricName> = new Set([
  'delivery_rate',
  'offered_ratio',
]);

const EXPR =
  /^\s*([A-Za-z_][A-Za-z0-9_.]*(?:\{[^}]*\})?)\s*(<=|>=|==|!=|<|>)\s*(-?[0-9][0-9_]*(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?)\s*(%?)\s*$/i;

/** Throws FigureError as a ThresholdError naming the expression. */
export function parseFigureOf(expression: string, text: string): FigureRef {
  try {
    return parseFigure(text);
  } catch (e) {
    if (e instanceof FigureError) throw new ThresholdError(expression, e.message);
    throw e;
  }
}

export function parseThreshold(expression: string): Threshold {
  const m = EXPR.exec(expression);
  if (!m) {
    throw new ThresholdError(
      expression,
      'expected "<metric> <op> <number>", e.g. "p95_ms < 200"; ops: < <= > >= == !=',
    );
  }
  const [, figureSrc, op, numText, pct] = m;
  const figure = parseFigureOf(expression, figureSrc);
  let value = Number(numText.replace(/_/g, ''));
  if (!Number.isFinite(value)) throw new ThresholdError(expression, `not a number: ${numText}`);
  if (pct) {
    const name = figure.kind === 'step' ? figure.metric : figureText(figure);
    if (figure.kind === 'step' && RATIO_METRICS.has(figure.metric)) value /= 100;
    else if (!name.endsWith('_pct')) {
      throw new ThresholdError(
        expression,
        `"%" only applies to ratio or _pct metrics, not ${name}`,
      );
    }
  }
  return { expression: expression.trim(), figure, op: op as ThresholdOp, value };
}

/** The expression and abort_on_fail of a profile entry, whichever form it has. */
export function thresholdSpec(s: ThresholdSpec): { expression: string; abortOnFail: boolean } {
  return typeof s === 'string'
    ? { expression: s, abortOnFail: false }
    : { expression: s.threshold, abortOnFail: s.abort_on_fail ?? false };
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

/** What a threshold is judged on. */
export interface ThresholdContext {
  steps: readonly StepResult[];
  /** The run's scenario, for `{scenario:...}` selectors; unknown: they select every run. */
  scenario?: string;
  /**
   * Capacity row id → value (capacity.json `values`, or a run's own analysis); absent: capacity
   * thresholds fail, saying so.
   */
  capacity?: Readonly<Record<string, number | null>>;
}

export interface ThresholdResult {
  threshold: Threshold;
  pass: boolean;
  /** False when a scenario selector excludes the run: it passes, and says why it was not judged. */
  applicable: boolean;
  /** Per selected step, in step order (empty for a capacity row). */
  steps: StepThresholdResult[];
  /** The step furthest on the wrong side (or closest to the bound when all pass). */
  worst: StepThresholdResult | null;
  /** A capacity row's value (null: the row has none). */
  actual?: number | null;
  /** One line: "p95_ms < 200: fail — step 3: 412, step 4: not measured". */
  summary: string;
}

export function evaluateOnStep(t: Threshold | string, step: StepResult): StepThresholdResult {
  const th = typeof t === 'string' ? parseThreshold(t) : t;
  if (th.figure.kind !== 'step')
    throw new ThresholdError(
      th.expression,
      'a capacity threshold is judged on the capacity table, not on a step',
    );
  const actual = STEP_METRICS[th.figure.metric](step);
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

export function fmtFigure(v: number | null): string {
  if (v === null) return 'not measured';
  return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(6)));
}

function evaluateCapacity(
  th: Threshold & { figure: { kind: 'capacity' } },
  ctx: ThresholdContext,
): ThresholdResult {
  const base = { threshold: th, applicable: true, steps: [], worst: null };
  if (!ctx.capacity)
    return {
      ...base,
      pass: false,
      actual: null,
      summary: `${th.expression}: fail — no capacity table to judge it on`,
    };
  const actual = ctx.capacity[th.figure.row] ?? null;
  const pass = actual !== null && compare(actual, th.op, th.value);
  const shown = actual === null ? 'the row has no value' : fmtFigure(actual);
  return {
    ...base,
    pass,
    actual,
    summary: `${th.expression}: ${pass ? 'pass' : 'fail'} (${shown})`,
  };
}

/** A threshold on a run: every selected step must pass. Nothing selected fails (nothing shown). */
export function evaluateOnRun(t: Threshold | string, run: ThresholdContext): ThresholdResult {
  const th = typeof t === 'string' ? parseThreshold(t) : t;
  const fig = th.figure;
  if (fig.kind === 'capacity') return evaluateCapacity({ ...th, figure: fig }, run);
  const sel = selectSteps(fig, run.steps, run.scenario);
  if (!sel.applicable)
    return {
      threshold: th,
      pass: true,
      applicable: false,
      steps: [],
      worst: null,
      summary: `${th.expression}: not applicable — ${sel.why}`,
    };
  const steps = sel.steps.map((s) => evaluateOnStep(th, s));
  const pass = steps.length > 0 && steps.every((s) => s.pass);
  let worst: StepThresholdResult | null = null;
  for (const s of steps) if (!worst || badness(th, s.actual) > badness(th, worst.actual)) worst = s;
  const failing = steps.filter((s) => !s.pass);
  const none =
    run.steps.length === 0 ? 'the run has no steps' : `no step matches ${figureText(fig)}`;
  const summary =
    steps.length === 0
      ? `${th.expression}: fail — ${none}`
      : pass
        ? `${th.expression}: pass (worst: step ${worst!.step}: ${fmtFigure(worst!.actual)})`
        : `${th.expression}: fail — ${failing.map((s) => `step ${s.step}: ${fmtFigure(s.actual)}`).join(', ')}`;
  return { threshold: th, pass, applicable: true, steps, worst, summary };
}

/**
 * How an abort_on_fail stop begins its reason (a run's abort_reason), so a campaign can tell it
 * apart.
 */
export const ABORT_ON_FAIL_PREFIX = 'threshold failed with abort_on_fail: ';

/** All thresholds of a profile; throws ThresholdError naming the first unparsable one. */
export function evaluateThresholds(
  specs: readonly ThresholdSpec[],
  run: ThresholdContext,
): { pass: boolean; results: ThresholdResult[] } {
  const parsed = specs.map((s) => parseThreshold(thresholdSpec(s).expression));
  const results = parsed.map((t) => evaluateOnRun(t, run));
  return { pass: results.every((r) => r.pass), results };
}

/**
 * abort_on_fail (k6's abortOnFail): the first such threshold that fails on the steps done so
 * far, as the reason the run stops; null when none fails. Only thresholds on steps can stop a
 * run (a capacity row exists once the run is analysed); a step selector that matches no step
 * yet is not a failure here: its step may still come.
 */
export function abortReason(specs: readonly ThresholdSpec[], run: ThresholdContext): string | null {
  for (const s of specs) {
    const { expression, abortOnFail } = thresholdSpec(s);
    if (!abortOnFail) continue;
    const th = parseThreshold(expression);
    if (th.figure.kind !== 'step') continue;
    const r = evaluateOnRun(th, run);
    if (r.applicable && r.steps.length > 0 && !r.pass) return `${ABORT_ON_FAIL_PREFIX}${r.summary}`;
  }
  return null;
}
