/**
 * docs/METHOD.md §6 Postgres Changes' figures (StepResult.extra): subscription reconciliation
 * (confirmed vs subscribers), deliveries per round, latency from the insert and from the commit,
 * the poller's peak from the server's gauges.
 */
import { steadySeconds } from '../measure/steady-seconds.js';
import { gaugeMax } from '../monitor/gauges.js';
import type { Profile } from '../profile/schema.js';
import type { PostgresChangesExtra } from '../result/extra.js';
import { r3 } from '../util/round.js';
import { latencySummary } from './extra-common.js';
import type { StepContext } from './step-context.js';

/**
 * Subscribers whose subscription the server confirmed and that were still there when the steady
 * state began.
 */
export function confirmedSubscribers(ctx: StepContext): number {
  let n = 0;
  for (const c of ctx.collected) {
    for (const [key, list] of Object.entries(c.membership)) {
      if (!key.startsWith('changes:')) continue;
      for (const m of list) if (m.leftAtMs > ctx.window.steadyStart) n++;
    }
  }
  return n;
}

/**
 * The built-in server's subs_pool_size (its bench default and Supabase's are both 1,
 * docs/PROTOCOL.md §8.2).
 */
export function subsPoolSize(profile: Profile, builtin: boolean): number | null {
  if (!builtin) return null;
  const v = profile.target.server.config.subs_pool_size;
  return typeof v === 'number' ? v : 1;
}

export function postgresChangesExtra(ctx: StepContext): PostgresChangesExtra {
  const p = ctx.plan.params;
  const k = ctx.kinds.changes;
  const f = k?.figures;
  const w = ctx.window;
  const steadyS = steadySeconds(w);
  const perRound = Number(p.changes_per_round);
  const inserted = f?.sent ?? 0;
  const commit = latencySummary(ctx.commitLatency);
  return {
    subscribers: ctx.plan.connections,
    subscribed: confirmedSubscribers(ctx),
    rounds: perRound > 0 ? inserted / perRound : 0,
    changes_per_round: perRound,
    deliveries_expected: f?.expected ?? 0,
    deliveries_received: f?.received ?? 0,
    deliveries_missing: f?.lost ?? 0,
    // Sampled once a second from the server's gauge of its last poll (docs/METHOD.md §6:
    // the poller peak).
    poll_ms_max: gaugeMax(
      ctx.serverGauges,
      'realtime_replication_poller_last_poll_ms',
      w.steadyStart,
      w.drainEnd,
    ),
    poller_lag_ms_max: gaugeMax(
      ctx.serverGauges,
      'realtime_replication_poller_lag_ms',
      w.steadyStart,
      w.drainEnd,
    ),
    changes_per_s: r3(inserted / steadyS),
    inserts_failed: ctx.insertStats?.failed ?? 0,
    latency_from_insert_ms: latencySummary(k?.deliveryHistogram ?? null),
    latency_from_commit_ms: commit,
    subs_pool_size: subsPoolSize(ctx.profile, ctx.builtin),
    filtered: Boolean(p.filtered),
  } satisfies Required<PostgresChangesExtra>;
}
