/**
 * Seed 002 §4: connection and authorisation rate. Each step opens its own fresh connections
 * (the previous step's are closed first) at its join rate, every one joining the step's
 * private topic (`<private.topic_prefix>s<step>`, e.g. `slow-s3`) with its own JWT, so each
 * join costs one RLS read check on the server's authorisation pool (docs/PROTOCOL.md §6.2). Past
 * db_pool ÷ check time the pool's queue overflows and the server refuses every check for its
 * error window: `IncreaseConnectionPool: Please increase your connection pool size` (§6.4).
 *
 * Figures: join attempts (first attempts + reconnects with load.reconnect's backoff and
 * jitter), successes, rejections by the server's verbatim reason, other failures (timeouts,
 * network) and attempts still pending — attempts = succeeded + rejected + other + pending;
 * the time from the first rejection to the first second with a successful join and no
 * rejection (from the per-second timeline); the measured ceiling (most successful joins in
 * one whole second of the step) beside the predicted one, db_pool ÷ check time.
 *
 * The check time is the join reply time (phx_join → ok), which on a private channel is the
 * RLS read check plus one round trip, taken only from a step where no join failed and the
 * replies show no queue (median within 1.5 × the fastest tenth + 5 ms): above the ceiling
 * the joins that came first are served at check time and the rest wait, so the median is
 * queue time, not check time. (The slowest replies are no guide: the first checks on a
 * fresh pool connection are slow, queue or not.)
 *
 * With `send_rate`, connection 0 of the step broadcasts on the step's topic during the steady
 * window: a private write needs a check on the same pool, so a tripped pool shows as
 * delivery 0 (seed 002 §4 at 130/s: nothing delivered).
 */
import type { Profile } from '../profile/schema.js';
import type { JoinRateExtra } from '../result/extra.js';
import type { SecondRecord } from '../run/figures/timeline.js';
import {
  countAt,
  joinReplyHistogram,
  latencySummary,
  privateTopic,
  reconnectPolicy,
  stepErrors,
  sumOf,
  userClaims,
} from './common.js';
import { kindStream, type Scenario, type StepPlan } from './types.js';
import { r1 } from '../util/round.js';

export function joinRateTopic(profile: Profile, step: number): string {
  return privateTopic(profile, `s${step + 1}`);
}

export function planJoinRate(profile: Profile, step: number): StepPlan {
  const s = profile.load.steps[step];
  const connections = s.connections;
  const joinRatePerS = s.join_rate ?? profile.load.join_rate;
  const durationMs = s.duration;
  const payloadBytes = s.payload_bytes ?? profile.load.payload_bytes;
  const topic = joinRateTopic(profile, step);
  const count = connections > 0 ? countAt(s.send_rate, durationMs) : 0;
  const stream = kindStream('broadcast', 0);
  const receivers = Math.max(0, profile.load.self ? connections : connections - 1);
  return {
    step,
    label: s.label ?? `${joinRatePerS}/s private joins × ${connections}`,
    connections,
    joinRatePerS,
    durationMs,
    payloadBytes,
    topicOf: () => topic,
    joinConfigOf: () => ({ private: true }),
    userClaimsOf: (conn) => userClaims(profile, conn),
    broadcasts:
      count > 0
        ? {
            ratePerS: s.send_rate,
            count,
            senderOf: (k) => ({ conn: 0, stream, seq: k }),
            relay: true,
          }
        : null,
    presence: null,
    inserts: null,
    streamInfo: () => ({ key: topic, excludeSender: !profile.load.self, sender: 0 }),
    primaryKind: 'broadcast',
    reconnect: reconnectPolicy(profile),
    // Every step is its own topology: its joins are the measurement, so they start from none.
    topology: `join-rate:${step}`,
    params: {
      connections,
      send_rate: s.send_rate,
      duration_s: durationMs / 1000,
      join_rate: joinRatePerS,
      payload_bytes: payloadBytes,
      receivers,
    },
  };
}

/** A refusal by the server (a join error reply, or a refused upgrade), as the worker words it. */
const REJECTION = /^(join refused: |upgrade refused: )/;

/**
 * Rejections by the server's verbatim reason ("join refused: " dropped, upgrade refusals kept
 * whole).
 */
export function rejectionsByReason(errors: Map<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [reason, n] of errors) {
    if (!REJECTION.test(reason)) continue;
    const key = reason.startsWith('join refused: ')
      ? reason.slice('join refused: '.length)
      : reason;
    out[key] = (out[key] ?? 0) + n;
  }
  return out;
}

export interface JoinSecond {
  /** Epoch second. */
  t: number;
  joins: number;
  rejections: number;
}

export function joinSeconds(seconds: readonly SecondRecord[]): JoinSecond[] {
  return seconds.map((s) => {
    let rejections = 0;
    for (const w of s.workers)
      for (const [reason, n] of Object.entries(w.errorReasons))
        if (REJECTION.test(reason)) rejections += n;
    return { t: s.point.t, joins: s.point.joins_per_s, rejections };
  });
}

/**
 * Seconds from the first second with a rejection to the first later second with a successful
 * join and no rejection (seed 002 §4: the server recovers
 * by itself after a 30 s window). `recovered` is null when nothing was
 * rejected, false when no such second came before the step ended.
 */
export function recoveryAfterRejection(seconds: readonly JoinSecond[]): {
  seconds: number | null;
  recovered: boolean | null;
} {
  const first = seconds.find((s) => s.rejections > 0);
  if (!first) return { seconds: null, recovered: null };
  const back = seconds.find((s) => s.t > first.t && s.rejections === 0 && s.joins > 0);
  return back
    ? { seconds: back.t - first.t, recovered: true }
    : { seconds: null, recovered: false };
}

/**
 * db_pool of the target: declared (private.db_pool), or the built-in server's — the first
 * tenant's sizes the pools (src/server/server.ts), default 1 (src/server/options.ts).
 */
export function declaredDbPool(profile: Profile, builtin: boolean): number | null {
  if (profile.private.db_pool !== undefined) return profile.private.db_pool;
  if (!builtin) return null;
  const cfg = profile.target.server.config as {
    db_pool?: unknown;
    tenants?: Array<{ db_pool?: unknown }>;
  };
  const pool = cfg.tenants?.[0]?.db_pool ?? cfg.db_pool;
  return typeof pool === 'number' && pool > 0 ? pool : 1;
}

/**
 * The check time a step's join replies show (their median), or null when they show a queue instead.
 */
export function checkTimeMs(
  reply: { p10: number; p50: number } | null,
  failedJoins: number,
): number | null {
  if (!reply || failedJoins > 0) return null;
  return reply.p50 <= 1.5 * reply.p10 + 5 ? reply.p50 : null;
}

export const joinRate: Scenario = {
  name: 'join-rate',
  seedSection: '§4 Connection and authorisation rate',
  describe:
    'private joins at a fixed rate per step on fresh connections: join success, rejections by reason, recovery, reconnects with backoff and jitter, the pool ceiling predicted and measured',
  plan: planJoinRate,
  extra(ctx): Record<string, unknown> {
    const succeeded = sumOf(ctx.collected, (c) => c.connections.joined);
    const failed = sumOf(ctx.collected, (c) => c.connections.failed);
    const reconnects = sumOf(ctx.collected, (c) => c.connections.reconnects);
    const attempts = sumOf(ctx.collected, (c) => c.connections.scheduledJoins) + reconnects;
    const byReason = rejectionsByReason(stepErrors(ctx.collected));
    const rejected = Object.values(byReason).reduce((a, b) => a + b, 0);
    const seconds = joinSeconds(ctx.stepSeconds);
    const recovery = recoveryAfterRejection(seconds);
    const replies = joinReplyHistogram(ctx.collected);
    const reply = latencySummary(replies);
    const check = checkTimeMs(
      reply ? { p10: replies.getValueAtPercentile(10) / 1000, p50: reply.p50! } : null,
      failed,
    );
    const pool = declaredDbPool(ctx.profile, ctx.builtin);
    // Whole seconds only: a ramp shorter than one shows no full second of joins (null, not 0).
    const busiest = seconds.length ? Math.max(...seconds.map((s) => s.joins)) : 0;
    const measured = busiest > 0 || succeeded === 0 ? busiest : null;
    return {
      join_attempts: attempts,
      join_succeeded: succeeded,
      join_rejected: rejected,
      join_failed_other: failed - rejected,
      join_pending_at_end: attempts - succeeded - failed,
      rejections_by_reason: byReason,
      first_rejection_to_recovery_s: recovery.seconds,
      recovered: recovery.recovered,
      db_pool: pool,
      auth_check_ms_p50: check === null ? null : r1(check),
      predicted_ceiling_per_s:
        pool !== null && check !== null && check > 0 ? r1(pool / (check / 1000)) : null,
      measured_ceiling_per_s: measured,
      reconnects: ctx.plan.reconnect ? reconnects : null,
      join_reply_ms: reply,
    } satisfies Required<JoinRateExtra>;
  },
};
