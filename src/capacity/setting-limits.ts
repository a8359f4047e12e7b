/**
 * Rows of the capacity table whose value is set by a server setting rather than by the
 * instance (docs/CAPACITY.md "Rows a setting limits"): the join rate when the authorisation
 * pool's ceiling binds (db_pool ÷ check time × headroom), and presence members per topic when
 * the presence quota's arithmetic binds (quota ÷ topic updates/s). Each gets a `setting_limit`:
 * the setting, its value in the runs, the row's value per unit of it, whether the bound is one
 * tenant's (its database pool, its quota: more instances do not raise it), and the bound the
 * runs measured without it — so `rtcap plan` can turn the knob. Pure.
 */
import type { CapacityRow } from '../model/capacity-row.js';
import { formatCapacityValue } from '../model/capacity-dimensions.js';
import { limitingFactorOfStep } from '../model/step-limit.js';
import { DEFAULT_SAFE_LINES } from '../model/capacity-row.js';
import { STEP_METRICS, num, poolOverCheckPerS } from '../model/metrics.js';
import type { JoinRateExtra } from '../result/extra.js';
import type { Source } from './like-for-like.js';
import type { CapacityTableRow, SettingLimit } from './types.js';

type Bound = NonNullable<SettingLimit['without']>;

/**
 * The knee part of a per-run join row: the highest stable step's measured rate, and what stopped
 * it. A step above it asked more than the pool's ceiling (db_pool ÷ check time), so its failure
 * is the pool's, not the instance's: the knee is then only a lower bound of the instance.
 */
function kneeBound(source: Source, row: CapacityRow, ceilingPerS: number): Bound | null {
  const safe = row.knee.safe;
  if (!safe) return null;
  const step = source.result.steps.find((s) => s.index === safe.step);
  const value = (step && STEP_METRICS.joins_per_s(step)) ?? safe.value;
  const first = row.knee.first_unsafe;
  const unsafe =
    first && first.value < ceilingPerS
      ? source.result.steps.find((s) => s.index === first.step)
      : undefined;
  const rounded = formatCapacityValue(value, row.unit, true);
  if (unsafe)
    return {
      value,
      display: `≤ ${rounded}`,
      bound: 'upper',
      limiting_factor: limitingFactorOfStep(unsafe, DEFAULT_SAFE_LINES),
    };
  const why = first
    ? `the step above asked ${formatCapacityValue(first.value, row.unit)}, past the pool's ceiling: the pool's failure, not the instance's`
    : 'no limit reached';
  return {
    value,
    display: `≥ ${rounded}, ${why}`,
    bound: 'lower',
    limiting_factor: first ? 'auth pool' : 'not reached',
  };
}

/** Join rate bound by the pool: db_pool as run, joins/s per pool connection, the knee beside it. */
export function joinSettingLimit(
  row: CapacityTableRow,
  chosen: { source: Source; row: CapacityRow } | undefined,
): SettingLimit | null {
  if (row.rule !== 'pool headroom' || row.value === null || !chosen) return null;
  const pools = chosen.source.result.steps
    .map((s) => num((s.extra as Partial<JoinRateExtra> | undefined)?.db_pool))
    .filter((v): v is number => v !== null && v > 0);
  if (pools.length === 0) return null;
  const pool = Math.max(...pools);
  const ceilings = chosen.source.result.steps
    .map(poolOverCheckPerS)
    .filter((v): v is number => v !== null);
  const ceiling = ceilings.length ? Math.min(...ceilings) : Infinity;
  return {
    key: 'db_pool',
    setting: 'db_pool',
    today: pool,
    per_unit: row.value / pool,
    per_tenant: true,
    basis:
      "one tenant's authorisation pool: each private join holds one of its db_pool connections for an RLS check",
    without: kneeBound(chosen.source, chosen.row, ceiling),
  };
}

/**
 * Presence members bound by the quota arithmetic: quota as assumed, members per quota unit, the
 * measured knee.
 */
export function presenceSettingLimit(
  row: CapacityTableRow,
  before: CapacityTableRow,
  quotaPerS: number,
  topicUpdatesPerS: number,
): SettingLimit | null {
  if (row.rule !== 'presence quota') return null;
  const without: Bound | null =
    before.value !== null && before.bound !== null
      ? {
          value: before.value,
          display: before.display,
          bound: before.bound,
          limiting_factor: before.limiting_factor ?? 'not reached',
        }
      : null;
  return {
    key: 'max_presence_events_per_second',
    setting: 'max_presence_events_per_second',
    today: quotaPerS,
    per_unit: 1 / topicUpdatesPerS,
    per_tenant: true,
    basis: `one tenant's presence quota: a topic that updates ${topicUpdatesPerS}/s may have quota ÷ ${topicUpdatesPerS} members`,
    without,
  };
}
