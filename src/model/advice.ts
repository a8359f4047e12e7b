/**
 * Configuration advice, the table of docs/METHOD.md §8, computed from measurements.
 * Each row names the setting, the value, the reason (with the measured figures) and the
 * steps it rests on. Rows appear only when the run measured what they need.
 */
import type { StepResult } from '../result/result.js';
import type { JoinRateExtra, PostgresChangesExtra, PresenceExtra } from '../result/extra.js';
import { DEFAULT_JOIN_HEADROOM, type CapacityRow } from './capacity-row.js';
import { DASH, fmtInt, fmtMs, fmtRate, MAX_ROUNDING_SHORTFALL, niceFloor } from './format.js';
import { num } from './metrics.js';

export interface AdviceOptions {
  /** The join rate the operator wants to sustain (a red line, not a ceiling). */
  wanted_join_rate_per_s?: number | null;
  /** Share of the pool's ceiling used as the red line (docs/METHOD.md §4: 60/s of 125/s). */
  join_headroom?: number;
}

export type AdviceKey =
  'db_pool' | 'subs_pool_size' | 'max_events_per_second' | 'max_presence_events_per_second';

/**
 * What a row of docs/METHOD.md §8 says, from one run (AdviceRow) or a campaign (capacity/types
 * ConfigTableRow).
 */
export interface AdviceValue {
  key: AdviceKey;
  /** Human name as the platform shows it (docs/METHOD.md §8 first column). */
  setting: string;
  value: number | null;
  display: string;
  reason: string;
  benefit: string;
  /** lower: no limit was reached, so the value is what was carried and no cap is advised yet. */
  bound?: 'upper' | 'lower';
}

export interface AdviceRow extends AdviceValue {
  evidence_steps: number[];
}

function median(xs: number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function extra<T>(s: StepResult): Partial<T> {
  return (s.extra ?? {}) as Partial<T>;
}

/**
 * Pool size for a wanted join rate: rate ÷ headroom × check time. docs/METHOD.md §4's ceiling is
 * pool ÷ check time, and docs/METHOD.md §7 row 7 keeps the join rate at about half of it (60/s of
 * 125/s); sizing the pool to exactly rate × check time would run it at 100 % busy, where
 * docs/METHOD.md §4 saw IncreaseConnectionPool at 130/s against a 125/s ceiling. Headroom 1 gives
 * the bare formula.
 */
export function dbPoolForJoinRate(
  wantedPerS: number,
  checkMs: number,
  headroom = DEFAULT_JOIN_HEADROOM,
): number {
  return Math.ceil(((wantedPerS / headroom) * checkMs) / 1000 - 1e-9);
}

/** docs/METHOD.md §5: the per-topic update rate a presence quota allows: quota ÷ members. */
export function presenceUpdateRateLimit(quotaPerS: number, members: number): number {
  return quotaPerS / members;
}

/** docs/METHOD.md §5: the quota one topic needs: members² × per-member update rate. */
export function presenceQuotaNeeded(members: number, updatesPerMemberPerS: number): number {
  return members * members * updatesPerMemberPerS;
}

function adviseDbPool(steps: readonly StepResult[], opts: AdviceOptions): AdviceRow | null {
  const joinSteps = steps.filter((s) => {
    const e = extra<JoinRateExtra>(s);
    return num(e.db_pool) !== null || num(e.auth_check_ms_p50) !== null;
  });
  if (joinSteps.length === 0) return null;
  const headroom = opts.join_headroom ?? DEFAULT_JOIN_HEADROOM;
  const pools = joinSteps
    .map((s) => num(extra<JoinRateExtra>(s).db_pool))
    .filter((v): v is number => v !== null);
  const pool = pools.length ? Math.max(...pools) : null;
  // Check time: measured where the server reports it, else implied by pool ÷ measured ceiling.
  let checkMs = median(
    joinSteps
      .map((s) => num(extra<JoinRateExtra>(s).auth_check_ms_p50))
      .filter((v): v is number => v !== null),
  );
  let checkSource = 'measured median';
  if (checkMs === null && pool !== null) {
    const ceilings = joinSteps
      .map((s) => num(extra<JoinRateExtra>(s).measured_ceiling_per_s))
      .filter((v): v is number => v !== null && v > 0);
    if (ceilings.length) {
      checkMs = (pool / Math.max(...ceilings)) * 1000;
      checkSource = 'implied by pool ÷ measured ceiling';
    }
  }
  const evidence = joinSteps.map((s) => s.index);
  const base = {
    key: 'db_pool' as const,
    setting: 'Database connection pool size (db_pool)',
    evidence_steps: evidence,
  };
  if (checkMs === null) {
    return {
      ...base,
      value: pool,
      display: pool === null ? DASH : String(pool),
      reason: 'authorisation check time not measured: cannot size the pool',
      benefit: DASH,
    };
  }
  const ceiling = pool !== null ? pool / (checkMs / 1000) : null;
  const wanted = opts.wanted_join_rate_per_s ?? null;
  if (wanted === null) {
    const red = ceiling !== null ? ceiling * headroom : null;
    return {
      ...base,
      value: pool,
      display: pool === null ? DASH : String(pool),
      reason: `each private join and REST publish holds a pool connection for one RLS check (${fmtMs(checkMs)}, ${checkSource}); ceiling ${pool ?? DASH} ÷ ${fmtMs(checkMs)} ≈ ${fmtRate(ceiling)}. Set a wanted join rate to size the pool: db_pool = rate ÷ ${headroom} × ${fmtMs(checkMs)}`,
      benefit: `red line ${fmtRate(red)} at headroom ${headroom}`,
    };
  }
  const size = dbPoolForJoinRate(wanted, checkMs, headroom);
  const newCeiling = size / (checkMs / 1000);
  return {
    ...base,
    value: size,
    display: String(size),
    reason: `wanted ${fmtRate(wanted)} ÷ headroom ${headroom} × check ${fmtMs(checkMs)} (${checkSource}) = ${(((wanted / headroom) * checkMs) / 1000).toFixed(1)} connections`,
    benefit: `join ceiling ${ceiling !== null ? `${fmtRate(ceiling)} → ` : ''}${fmtRate(newCeiling)}, red line ${fmtRate(newCeiling * headroom)}`,
  };
}

/**
 * A quota from a measured row: the row's value rounded down at most MAX_ROUNDING_SHORTFALL
 * (format.niceFloor). A row that reached no limit (a lower bound) gives no cap: a cap below
 * what the instance was seen to carry would throttle load it carries.
 */
function quotaFrom(row: CapacityRow): { value: number; display: string; lower: boolean } {
  if (row.bound === 'lower') {
    return {
      value: row.value!,
      display: `≥ ${fmtInt(Math.floor(row.value!))}: measure higher before setting a cap`,
      lower: true,
    };
  }
  const value = niceFloor(row.value!);
  return { value, display: fmtInt(value), lower: false };
}

const ROUNDING = `rounded down at most ${MAX_ROUNDING_SHORTFALL * 100} %`;

function adviseMaxEvents(capacity: readonly CapacityRow[]): AdviceRow | null {
  const row =
    capacity.find((r) => r.id === 'public_deliveries') ??
    capacity.find((r) => r.id === 'private_deliveries');
  // A deliveries row limited by memory comes from a connection sweep: memory follows
  // connections, not deliveries (docs/METHOD.md §1.2: CPU follows deliveries, and not the number of
  // connections), so it says nothing about the quota.
  if (!row || row.value === null || row.limiting_factor === 'memory') return null;
  const q = quotaFrom(row);
  const reason = q.lower
    ? `counted per delivery (each recipient); no server limit reached: ${fmtRate(row.value)} is the highest stable delivery rate measured (${row.limiting_factor}), so a cap there could throttle load the instance carries`
    : `counted per delivery (each recipient); measured safe line ${fmtRate(row.value)} (${row.limiting_factor}); ${ROUNDING}`;
  return {
    key: 'max_events_per_second',
    setting: 'Max events per second (max_events_per_second)',
    value: q.value,
    display: q.display,
    reason,
    benefit: q.lower
      ? 'none yet: the limit is above what was measured'
      : 'the quota matches measured capacity: no throttling below it, no overload above it',
    bound: q.lower ? 'lower' : 'upper',
    evidence_steps: row.evidence_steps,
  };
}

function advisePresence(
  steps: readonly StepResult[],
  capacity: readonly CapacityRow[],
  maxEvents: AdviceRow | null,
): AdviceRow | null {
  const row = capacity.find((r) => r.id === 'presence_deliveries');
  if (!row || row.value === null) return null;
  const q = quotaFrom(row);
  let { value, display } = q;
  let lower = q.lower;
  // Presence events count against max_events_per_second too (docs/METHOD.md §8).
  let capped = '';
  if (maxEvents?.value != null && maxEvents.bound !== 'lower' && maxEvents.value < value) {
    value = maxEvents.value;
    display = fmtInt(value);
    lower = false;
    capped = `; capped at max_events_per_second ${fmtInt(maxEvents.value)}, which presence events also count against`;
  }
  // docs/METHOD.md §5: the quota divided by the members of a topic is that topic's update-rate
  // limit; shown for the largest member count the run carried stably.
  const stableMembers = steps
    .filter((s) => s.verdict === 'stable')
    .map((s) => num(extra<PresenceExtra>(s).members_per_topic))
    .filter((v): v is number => v !== null);
  const m = stableMembers.length ? Math.max(...stableMembers) : null;
  const topicNote =
    m !== null
      ? `; a topic of ${fmtInt(m)} members may then update ${fmtRate(presenceUpdateRateLimit(value, m))} (quota ÷ members)`
      : '';
  const line = lower
    ? `no limit reached: ${fmtRate(row.value)} is the highest stable rate measured (${row.limiting_factor})`
    : `measured safe line ${fmtRate(row.value)} (${row.limiting_factor}), ${ROUNDING}`;
  return {
    key: 'max_presence_events_per_second',
    setting: 'Max presence events per second (max_presence_events_per_second)',
    value,
    display,
    reason: `each state change is delivered to every member of the topic (members² × update rate); ${line}${capped}${topicNote}`,
    benefit: lower
      ? 'none yet: the limit is above what was measured'
      : 'presence load stays within what the instance delivers on time',
    bound: lower ? 'lower' : 'upper',
    evidence_steps: row.evidence_steps,
  };
}

function adviseSubsPool(steps: readonly StepResult[]): AdviceRow | null {
  const cdc = steps.filter((s) => num(extra<PostgresChangesExtra>(s).subscribers) !== null);
  if (cdc.length === 0) return null;
  const pools = cdc
    .map((s) => num(extra<PostgresChangesExtra>(s).subs_pool_size))
    .filter((v): v is number => v !== null);
  const pool = pools.length ? Math.max(...pools) : null;
  const short = cdc.filter((s) => {
    const e = extra<PostgresChangesExtra>(s);
    const sub = num(e.subscribed);
    const want = num(e.subscribers);
    return s.verdict !== 'generator-bound' && sub !== null && want !== null && sub < want;
  });
  const base = {
    key: 'subs_pool_size' as const,
    setting: 'Postgres Changes connection pool size (subs_pool_size)',
  };
  if (short.length === 0) {
    return {
      ...base,
      value: pool,
      display: pool === null ? DASH : String(pool),
      reason: 'every subscription was confirmed at every step: no change needed',
      benefit: DASH,
      evidence_steps: cdc.map((s) => s.index),
    };
  }
  const first = short[0];
  const e = extra<PostgresChangesExtra>(first);
  const value = pool !== null ? pool * 2 : null;
  return {
    ...base,
    value,
    display: value === null ? `more than now` : String(value),
    reason: `step ${first.index}: ${fmtInt(num(e.subscribed))} of ${fmtInt(num(e.subscribers))} subscriptions confirmed; the pool only creates subscriptions and the CDC circuit breaker trips at its size (seed §6)`,
    benefit:
      'delays the CDC circuit breaker; a mitigation — the root cause is the poller failing and subscriptions being cleared',
    evidence_steps: short.map((s) => s.index),
  };
}

/** The docs/METHOD.md §8 table for a run: rows for what the run measured. */
export function adviseConfig(
  steps: readonly StepResult[],
  capacity: readonly CapacityRow[],
  opts: AdviceOptions = {},
): AdviceRow[] {
  const maxEvents = adviseMaxEvents(capacity);
  return [
    adviseDbPool(steps, opts),
    adviseSubsPool(steps),
    maxEvents,
    advisePresence(steps, capacity, maxEvents),
  ].filter((r): r is AdviceRow => r !== null);
}
