/**
 * Which figure a threshold or a compare gate names, and where it is read:
 *
 *   p95_ms                          every step of the run
 *   p95_ms{step:3}                  step 3 (the step number as printed, from 1)
 *   p95_ms{step:"20k conns"}        the step labelled so (quotes when the label has spaces)
 *   p95_ms{step:2,step:3}           either (a key given twice means "any of")
 *   p95_ms{scenario:presence}       only when the run is of that scenario
 *   capacity.public_connections     a row of the docs/METHOD.md §7 capacity table, by its stable id
 *
 * Selectors narrow; they never widen. A step selector that matches no step of the run is not a
 * pass: the threshold then has nothing to judge and fails saying so (a typo must not turn a gate
 * green). A scenario selector that does not match the run makes the threshold not applicable:
 * one list of thresholds can then serve every run of a campaign.
 */
import type { StepResult } from '../result/result.js';
import { CAPACITY_DIMENSIONS } from './capacity-dimensions.js';
import { STEP_METRICS, isStepMetricName, type StepMetricName } from './metrics.js';

export type StepSelector = { by: 'index'; index: number } | { by: 'label'; label: string };

export type FigureRef =
  | { kind: 'step'; metric: StepMetricName; steps: StepSelector[]; scenarios: string[] }
  | { kind: 'capacity'; row: string };

/**
 * The stable ids of the capacity rows (docs/METHOD.md §7), as capacity.json's `values` keys them.
 */
export const CAPACITY_ROW_IDS: readonly string[] = CAPACITY_DIMENSIONS.map((d) => d.id);

export const CAPACITY_PREFIX = 'capacity.';

/** Why a figure reference does not parse; the caller wraps it with the expression. */
export class FigureError extends Error {}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Splits `key:value, key:"quoted value"` on commas outside quotes. */
function parseSelectors(body: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const re = /\s*([A-Za-z_]+)\s*:\s*(?:"([^"]*)"|'([^']*)'|([^,"']*?))\s*(?:,|$)/y;
  let at = 0;
  while (at < body.length) {
    re.lastIndex = at;
    const m = re.exec(body);
    if (!m || re.lastIndex === at)
      throw new FigureError(
        `cannot read the selector "${body.slice(at).trim()}" (expected key:value, e.g. step:3 or scenario:presence)`,
      );
    const value = m[2] ?? m[3] ?? m[4] ?? '';
    if (value === '') throw new FigureError(`selector "${m[1]}" has no value`);
    out.push([m[1], value]);
    at = re.lastIndex;
  }
  return out;
}

/**
 * Parses the figure part of an expression: `metric`, `metric{selectors}` or `capacity.<row id>`.
 */
export function parseFigure(text: string): FigureRef {
  const t = text.trim();
  if (t.startsWith(CAPACITY_PREFIX)) {
    const row = t.slice(CAPACITY_PREFIX.length);
    if (!CAPACITY_ROW_IDS.includes(row))
      throw new FigureError(
        `unknown capacity row "${row}" (known: ${CAPACITY_ROW_IDS.join(', ')})`,
      );
    return { kind: 'capacity', row };
  }
  const brace = t.indexOf('{');
  const name = (brace < 0 ? t : t.slice(0, brace)).trim();
  if (!NAME.test(name)) throw new FigureError(`not a figure name: "${name}"`);
  if (!isStepMetricName(name)) {
    const known = Object.keys(STEP_METRICS);
    const near = known.filter((k) => k.startsWith(name) || name.startsWith(k.split('_')[0]));
    const hint = near.length ? `; did you mean ${near.slice(0, 3).join(', ')}?` : '';
    throw new FigureError(
      `unknown metric "${name}"${hint} (known: ${known.join(', ')}, or capacity.<row>)`,
    );
  }
  const ref: FigureRef = { kind: 'step', metric: name, steps: [], scenarios: [] };
  if (brace < 0) return ref;
  if (!t.endsWith('}')) throw new FigureError(`selectors must end with "}": ${t.slice(brace)}`);
  for (const [key, value] of parseSelectors(t.slice(brace + 1, -1))) {
    if (key === 'step')
      ref.steps.push(
        /^[0-9]+$/.test(value)
          ? { by: 'index', index: Number(value) }
          : { by: 'label', label: value },
      );
    else if (key === 'scenario') ref.scenarios.push(value);
    else throw new FigureError(`unknown selector "${key}" (known: step, scenario)`);
  }
  return ref;
}

function selectorText(s: StepSelector): string {
  return s.by === 'index'
    ? `step:${s.index}`
    : /^[A-Za-z0-9_.-]+$/.test(s.label)
      ? `step:${s.label}`
      : `step:"${s.label}"`;
}

/** The figure as written canonically: `p95_ms{step:3}`, `capacity.join_rate`. */
export function figureText(ref: FigureRef): string {
  if (ref.kind === 'capacity') return `${CAPACITY_PREFIX}${ref.row}`;
  const sel = [...ref.steps.map(selectorText), ...ref.scenarios.map((s) => `scenario:${s}`)];
  return sel.length ? `${ref.metric}{${sel.join(',')}}` : ref.metric;
}

function stepMatches(sel: readonly StepSelector[], step: StepResult): boolean {
  return (
    sel.length === 0 ||
    sel.some((s) => (s.by === 'index' ? step.index === s.index : step.label === s.label))
  );
}

export type StepSelection =
  | { applicable: true; steps: StepResult[] }
  /** Why the threshold does not apply to this run (a scenario selector that does not match). */
  | { applicable: false; why: string };

/** The steps of a run a step figure judges. `scenario`: the run's scenario, when known. */
export function selectSteps(
  ref: Extract<FigureRef, { kind: 'step' }>,
  steps: readonly StepResult[],
  scenario?: string,
): StepSelection {
  if (ref.scenarios.length && scenario !== undefined && !ref.scenarios.includes(scenario)) {
    return {
      applicable: false,
      why: `the run is ${scenario}, the threshold selects ${ref.scenarios.join(' or ')}`,
    };
  }
  return { applicable: true, steps: steps.filter((s) => stepMatches(ref.steps, s)) };
}
