/**
 * Seed 002 §6: Postgres Changes. N subscribers join room topics with one `postgres_changes`
 * binding each (with `filtered`, `<filter_column>=eq.<room>`), under a token whose claims let
 * the table's RLS show them the rows (changes.claims). The server confirms each subscription
 * with a `system` "Subscribed to PostgreSQL" message: that confirmation is what makes a
 * subscriber expected (subscription reconciliation = confirmed vs subscribers).
 *
 * The coordinator inserts rows through pg at `insert_rate` over the steady state, in rounds: a
 * round is one row every subscriber sees (unfiltered) or one row per room, each seen by that
 * room's subscribers (filtered). Expected per row = confirmed subscribers of its membership at
 * the row's scheduled insert time, so a full step expects rounds × subscribers.
 *
 * Latency is from the row's scheduled insert time (`sent_at`, client clock) and from
 * `commit_timestamp` (server clock); the poller's figures come from the server's /metrics
 * when it has them.
 */
import { gaugeMax } from '../monitor/gauges.js';
import type { Profile } from '../profile/schema.js';
import type { StepContext } from '../run/step-result.js';
import {
  changeRows,
  changesBinding,
  changesKey,
  changesPerRound,
  subscriberClaims,
} from './changes.js';
import { latencySummary, reconnectPolicy, steadySeconds } from './common.js';
import { roomTopic } from './rooms.js';
import { kindStream, type Scenario, type StepPlan } from './types.js';
import { r3 } from '../util/round.js';

export function planPostgresChanges(profile: Profile, step: number): StepPlan {
  const s = profile.load.steps[step];
  const connections = s.connections;
  const rooms = s.rooms ?? 1;
  const filtered = s.filtered ?? false;
  const durationMs = s.duration;
  const joinRatePerS = s.join_rate ?? profile.load.join_rate;
  const payloadBytes = s.payload_bytes ?? profile.load.payload_bytes;
  const insertRatePerS = s.insert_rate ?? s.send_rate;
  const perRound = changesPerRound(rooms, filtered);
  // Subscribers take rooms in turn, so a later step with more subscribers keeps the earlier ones.
  const roomOf = (conn: number) => conn % rooms;
  const inserts =
    connections > 0
      ? changeRows(profile, {
          ratePerS: insertRatePerS,
          durationMs,
          rooms,
          filtered,
          streamOf: (n) => kindStream('changes', n),
        })
      : null;
  const rounds = inserts ? inserts.count / perRound : 0;
  const c = profile.changes;
  return {
    step,
    label:
      s.label ??
      `${connections} subscribers${filtered ? `, filtered over ${rooms} rooms` : ''}, ${rounds} round${rounds === 1 ? '' : 's'}`,
    connections,
    joinRatePerS,
    durationMs,
    payloadBytes,
    topicOf: (conn) => roomTopic(profile, roomOf(conn)),
    joinConfigOf: (conn) => ({
      private: false,
      postgresChanges: [changesBinding(profile, roomOf(conn), filtered)],
    }),
    userClaimsOf: (conn) => subscriberClaims(profile, conn),
    changesKeyOf: (conn) => changesKey(roomOf(conn), filtered),
    broadcasts: null,
    presence: null,
    inserts,
    // Filtered: stream n carries room n's rows; unfiltered: lanes every subscriber sees.
    streamInfo: (local) => ({
      key: changesKey(local - kindStream('changes', 0), filtered),
      excludeSender: false,
      sender: null,
    }),
    primaryKind: 'changes',
    reconnect: reconnectPolicy(profile),
    topology: `postgres-changes:${rooms}:${filtered}:${c.schema}.${c.table}:${c.event}`,
    params: {
      connections,
      send_rate: insertRatePerS,
      duration_s: durationMs / 1000,
      join_rate: joinRatePerS,
      payload_bytes: payloadBytes,
      subscribers: connections,
      rooms,
      filtered,
      insert_rate: insertRatePerS,
      rounds,
      changes_per_round: perRound,
      // Every subscriber sees one row of each round.
      deliveries_expected_target: rounds * connections,
    },
  };
}

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

export function postgresChangesExtra(ctx: StepContext): Record<string, unknown> {
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
    // Sampled once a second from the server's gauge of its last poll (seed 002 §6:
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
  };
}

export const postgresChanges: Scenario = {
  name: 'postgres-changes',
  seedSection: '§6 Postgres Changes',
  describe:
    'N subscribers with a postgres_changes binding (filtered or not), rows inserted through pg in rounds: subscription reconciliation, deliveries per round, latency from insert and commit, poller peak',
  plan: planPostgresChanges,
  extra: postgresChangesExtra,
};
