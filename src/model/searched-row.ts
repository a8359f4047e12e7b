/**
 * A search speaks for one row: the docs/METHOD.md §7 row whose figure its driver moves (a
 * connections search of public broadcast is row 1, its send_rate search row 3), the other drivers
 * held at the row's reference levels. A searched run's capacity table is that row alone — its own
 * knee and its own limit — never a row another driver merely rose with; and the row is there even
 * when the search measured fewer than two values: one stable step and then a generator-bound one is
 * "≥ X, generator-bound above", a first step already generator-bound says so with the figure
 * that tripped and the value it asked for. Pure.
 */
import type { StepResult } from '../result/result.js';
import { CAPACITY_DIMENSIONS, type CapacityDimension } from './capacity-dimensions.js';
import { DEFAULT_SAFE_LINES, type CapacityOptions, type CapacityRow } from './capacity-row.js';
import { capacityRow } from './capacity.js';
import { fmtInt } from './format.js';
import { limitWords } from './limit.js';
import { factorOfLimit, limitContextOf, limitOfStep, type LimitRun } from './step-limit.js';
import { isJudged } from './verdict.js';

/** What a run's search record says of its driver (result.sweep). */
export interface SearchedRun {
  profile: { scenario: string };
  sweep?: { mode?: string; driver?: string } | null;
}

/** Scenario → sweep driver → the docs/METHOD.md §7 row id the search measures. */
const ROW_OF_SEARCH: Record<string, Record<string, string>> = {
  'broadcast-public': {
    connections: 'public_connections',
    rooms: 'public_connections',
    send_rate: 'public_deliveries',
    room_send_rate: 'public_deliveries',
    members: 'public_deliveries',
  },
  'broadcast-private': {
    connections: 'private_connections',
    rooms: 'private_connections',
    send_rate: 'private_sends',
    room_send_rate: 'private_sends',
    members: 'private_deliveries',
  },
  'write-only': { send_rate: 'write_only_sends', connections: 'write_only_sends' },
  'join-rate': { join_rate: 'join_rate' },
  'payload-size': { payload_bytes: 'message_size' },
  'postgres-changes': { subscribers: 'cdc_subscribers', insert_rate: 'cdc_changes' },
  presence: { members: 'presence_members', update_share: 'presence_deliveries' },
};

/**
 * The row a run's search measures, or null when the run is no search (explicit values, a fixed
 * run) or its driver names no row of its scenario: then every row its steps vary speaks.
 */
export function searchedDimension(run: SearchedRun): CapacityDimension | null {
  const sweep = run.sweep;
  if (!sweep || sweep.mode !== 'search' || !sweep.driver) return null;
  const id = ROW_OF_SEARCH[run.profile.scenario]?.[sweep.driver];
  return CAPACITY_DIMENSIONS.find((d) => d.id === id) ?? null;
}

/**
 * The searched row of a run: the search's own knee and limit (capacityRow along its driver, every
 * other row of the scenario still there to take a failure another driver explains), with no
 * claim that a driver it raised with it owns the limit (the search held the others at their
 * reference levels). A search whose every step was generator-bound says so: the figure that
 * tripped at the first value it asked for, a lower bound with no value (a generator-bound step
 * is never capacity).
 */
export function searchedRow(
  run: LimitRun & {
    profile: { scenario: string };
    steps: readonly StepResult[];
    sweep?: SearchedRun['sweep'] & { points?: ReadonlyArray<{ step: number; value: number }> };
  },
  dim: CapacityDimension,
  opts: CapacityOptions = {},
): CapacityRow {
  const ctxOpts = { ...opts, limit_context: opts.limit_context ?? limitContextOf(run) };
  const others = CAPACITY_DIMENSIONS.filter(
    (d) => d !== dim && d.scenarios.includes(run.profile.scenario),
  );
  const row = { ...capacityRow(run.steps, dim, ctxOpts, others), covaries_with: [] };
  if (row.limit.kind !== 'no-stable-step' || run.steps.some((s) => isJudged(s.verdict))) return row;
  // The value the search asked for first (a generator-bound step's measured figures are only
  // what it managed to offer).
  const points = run.sweep?.points ?? [];
  const first = points[0];
  const step = first && run.steps.find((s) => s.index === first.step);
  if (!first || !step || step.verdict !== 'generator-bound') return row;
  const safe = { ...DEFAULT_SAFE_LINES, ...opts.safe_lines };
  const limit = limitOfStep(step, { ...ctxOpts.limit_context, safe });
  const v = Number.isInteger(first.value) ? fmtInt(first.value) : String(first.value);
  const at = `${run.sweep?.driver ?? dim.driver} ${v}`;
  const tries = points.filter((p) => p.value === first.value).length;
  return {
    ...row,
    bound: 'lower',
    limit,
    limiting_factor: factorOfLimit(limit),
    display: `— generator-bound at the first value, ${at}`,
    evidence: `no step measured the server: the first value, ${at} (step ${first.step}), was generator-bound${tries > 1 ? ` on all ${tries} tries` : ''} — ${limitWords(limit, { remedy: false })}`,
    evidence_steps: [first.step],
  };
}
