/**
 * Regression gates of `rtcap compare A B --fail-on ...`: how much worse B may be
 * than A on one figure, step by step (steps matched by number, as the comparison does).
 *
 *   p95_ms +10%          fails where B's p95 is more than 10 % above A's
 *   p95_ms +5ms          ... more than 5 ms above A's (the figure's own unit: ms, /s, B)
 *   delivery_rate -0.1pp fails where B's delivery rate is more than 0.1 percentage points below
 *   cpu_pct +5pp         ... server CPU more than 5 points above
 *   errors +0            any increase fails
 *   capacity.public_connections -10%   on the runs' docs/METHOD.md §7 capacity rows
 *
 * The sign says which way is a regression. A gate also takes the selectors of a threshold
 * (`p95_ms{step:3} +10%`), and an absolute threshold (`p95_ms < 200`) is judged on B alone.
 * A figure missing on either side fails: a gate must not pass on a missing number.
 */
import type { StepResult } from '../result/result.js';
import { figureText, selectSteps, type FigureRef } from './figure-ref.js';
import { STEP_METRICS } from './metrics.js';
import {
  evaluateOnRun,
  fmtFigure,
  parseFigureOf,
  parseThreshold,
  RATIO_METRICS,
  ThresholdError,
  type ThresholdContext,
} from './thresholds.js';

export type GateUnit = 'pct' | 'pp' | 'abs';

export interface Gate {
  expression: string;
  figure: FigureRef;
  /** +1: an increase is the regression; −1: a decrease. */
  direction: 1 | -1;
  /** The allowed change, ≥ 0, in `unit`. */
  amount: number;
  unit: GateUnit;
}

/** Unit suffixes accepted on an absolute change, by the suffix of the figure's name. */
const ABS_UNITS: Array<[nameSuffix: string, unit: string]> = [
  ['_ms', 'ms'],
  ['_per_s', '/s'],
  ['_bytes', 'B'],
  ['_mb', 'MB'],
];

const GATE =
  /^\s*([A-Za-z_][A-Za-z0-9_.]*(?:\{[^}]*\})?)\s*([+-])\s*([0-9][0-9_]*(?:\.[0-9]+)?)\s*(%|pp|ms|\/s|B|MB)?\s*$/;

function figureName(f: FigureRef): string {
  return f.kind === 'step' ? f.metric : figureText(f);
}

export function parseGate(expression: string): Gate {
  const m = GATE.exec(expression);
  if (!m)
    throw new ThresholdError(
      expression,
      'expected "<metric> +<n>%", "<metric> -<n>pp" or "<metric> +<n><unit>", e.g. "p95_ms +10%", "delivery_rate -0.1pp", "p95_ms +5ms"',
    );
  const [, figureSrc, sign, numText, suffix] = m;
  const figure = parseFigureOf(expression, figureSrc);
  const name = figureName(figure);
  const amount = Number(numText.replace(/_/g, ''));
  const isRatio = figure.kind === 'step' && RATIO_METRICS.has(figure.metric);
  let unit: GateUnit = 'abs';
  if (suffix === '%') unit = 'pct';
  else if (suffix === 'pp') {
    if (!isRatio && !name.endsWith('_pct'))
      throw new ThresholdError(
        expression,
        `"pp" (percentage points) applies to ratio or _pct metrics, not ${name}`,
      );
    unit = 'pp';
  } else if (suffix) {
    const want = ABS_UNITS.find(([s]) => name.endsWith(s))?.[1];
    if (want !== suffix)
      throw new ThresholdError(
        expression,
        `${name} is not measured in ${suffix}${want ? ` (its unit: ${want})` : ' (write the change without a unit, or in % )'}`,
      );
  } else if (isRatio && amount !== 0) {
    throw new ThresholdError(
      expression,
      `write a change of ${name} in pp (percentage points) or %, e.g. "${name} -0.1pp"`,
    );
  }
  return { expression: expression.trim(), figure, direction: sign === '+' ? 1 : -1, amount, unit };
}

/** The change B − A may make in the regression direction before the gate fails. */
function allowed(g: Gate, a: number): number {
  if (g.unit === 'pct') return (g.amount / 100) * Math.abs(a);
  if (g.unit === 'pp' && g.figure.kind === 'step' && RATIO_METRICS.has(g.figure.metric))
    return g.amount / 100;
  return g.amount;
}

export interface GatePair {
  /** Step number; null for a capacity row. */
  step: number | null;
  a: number | null;
  b: number | null;
  pass: boolean;
  /** "100 → 120 (+20.0 %)". */
  text: string;
}

export interface GateResult {
  expression: string;
  /** The figure the gate judges, named in every failure line. */
  figure: string;
  pass: boolean;
  pairs: GatePair[];
  /** One line: "p95_ms +10%: FAIL — p95_ms step 2: 100 → 120 (+20.0 %)". */
  summary: string;
}

function changeText(g: Gate, a: number, b: number): string {
  const d = b - a;
  const s = d > 0 ? '+' : d < 0 ? '−' : '±';
  const ratio = g.figure.kind === 'step' && RATIO_METRICS.has(g.figure.metric);
  if (ratio || g.unit === 'pp') return `${s}${fmtFigure(Math.abs(d) * (ratio ? 100 : 1))} pp`;
  const rel = a !== 0 ? `, ${s}${(Math.abs(d / a) * 100).toFixed(1)} %` : '';
  return `${s}${fmtFigure(Math.abs(d))}${rel}`;
}

export function judgePair(
  g: Gate,
  step: number | null,
  a: number | null,
  b: number | null,
): GatePair {
  if (a === null || b === null) {
    const which = a === null && b === null ? 'A and B' : a === null ? 'A' : 'B';
    return { step, a, b, pass: false, text: `not measured in ${which}` };
  }
  const regression = (b - a) * g.direction;
  const limit = allowed(g, a);
  // A change exactly at the limit passes; the slack absorbs floating-point error only.
  const pass = regression <= limit + 1e-9 * Math.max(1, Math.abs(limit), Math.abs(a));
  return { step, a, b, pass, text: `${fmtFigure(a)} → ${fmtFigure(b)} (${changeText(g, a, b)})` };
}

/** The two sides a gate compares. */
export interface GateSide extends ThresholdContext {
  capacity?: Readonly<Record<string, number | null>>;
}

export function evaluateGate(g: Gate, a: GateSide, b: GateSide): GateResult {
  const name = figureText(g.figure);
  const at = (p: GatePair) =>
    `${g.figure.kind === 'step' ? `${g.figure.metric} step ${p.step}` : name}: ${p.text}`;
  const result = (pass: boolean, pairs: GatePair[], summary: string): GateResult => ({
    expression: g.expression,
    figure: name,
    pass,
    pairs,
    summary,
  });
  const done = (pairs: GatePair[]): GateResult => {
    const pass = pairs.length > 0 && pairs.every((p) => p.pass);
    if (pass) return result(true, pairs, `${g.expression}: pass (${pairs.map(at).join('; ')})`);
    const failing = pairs.filter((p) => !p.pass);
    return result(
      false,
      pairs,
      `${g.expression}: FAIL — ${failing.length ? failing.map(at).join('; ') : `no step of ${name} in both runs`}`,
    );
  };
  if (g.figure.kind === 'capacity') {
    const row = g.figure.row;
    if (!a.capacity || !b.capacity)
      return result(
        false,
        [],
        `${g.expression}: FAIL — no capacity table for ${!a.capacity ? 'A' : 'B'}`,
      );
    return done([judgePair(g, null, a.capacity[row] ?? null, b.capacity[row] ?? null)]);
  }
  const fig = g.figure;
  const selA = selectSteps(fig, a.steps, a.scenario);
  const selB = selectSteps(fig, b.steps, b.scenario);
  if (!selA.applicable) return result(true, [], `${g.expression}: not applicable — A: ${selA.why}`);
  if (!selB.applicable) return result(true, [], `${g.expression}: not applicable — B: ${selB.why}`);
  const byIndexB = new Map<number, StepResult>(selB.steps.map((s) => [s.index, s]));
  const pairs: GatePair[] = [];
  for (const sa of selA.steps) {
    const sb = byIndexB.get(sa.index);
    if (sb)
      pairs.push(
        judgePair(g, sa.index, STEP_METRICS[fig.metric](sa), STEP_METRICS[fig.metric](sb)),
      );
  }
  return done(pairs);
}

/** A --fail-on expression: a relative gate, or an absolute threshold judged on B. */
export type FailOn = { kind: 'gate'; gate: Gate } | { kind: 'threshold'; expression: string };

export function parseFailOn(expression: string): FailOn {
  if (/(<=|>=|==|!=|<|>)/.test(expression)) {
    parseThreshold(expression);
    return { kind: 'threshold', expression };
  }
  return { kind: 'gate', gate: parseGate(expression) };
}

export function evaluateFailOn(
  exprs: readonly string[],
  a: GateSide,
  b: GateSide,
): { pass: boolean; results: GateResult[] } {
  const results = exprs.map((e): GateResult => {
    const f = parseFailOn(e);
    if (f.kind === 'gate') return evaluateGate(f.gate, a, b);
    const r = evaluateOnRun(f.expression, b);
    const th = r.threshold;
    return {
      expression: th.expression,
      figure: figureText(th.figure),
      pass: r.pass,
      pairs: [],
      summary: `${r.summary.replace(/: fail/, ': FAIL')} (on B)`,
    };
  });
  return { pass: results.every((r) => r.pass), results };
}
