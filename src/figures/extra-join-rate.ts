/**
 * docs/METHOD.md §4 connection and authorisation rate's figures (StepResult.extra): join attempts,
 * successes, rejections by the server's verbatim reason, recovery after the first rejection, the
 * pool ceiling predicted (db_pool ÷ check time) beside the one measured. scenarios/join-rate.ts
 * says how the check time is read from the join replies.
 */
import type { Profile } from '../profile/schema.js';
import type { JoinRateExtra } from '../result/extra.js';
import { firstTenantLimits } from '../builtin/config.js';
import { r1 } from '../util/round.js';
import { sumOf } from '../util/sum.js';
import { stepErrors } from './errors.js';
import { joinReplyHistogram, latencySummary } from './extra-common.js';
import type { StepContext } from './step-context.js';
import type { SecondRecord } from './timeline.js';

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
 * join and no rejection (docs/METHOD.md §4: the server recovers
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
 * db_pool of the target: declared (private.db_pool), or the built-in server's — its first
 * tenant's, which sizes the pools, as the server's options module resolves it.
 */
export function declaredDbPool(profile: Profile, builtin: boolean): number | null {
  if (profile.private.db_pool !== undefined) return profile.private.db_pool;
  if (!builtin) return null;
  return firstTenantLimits(profile.target.server.config)?.db_pool ?? null;
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

export function joinRateExtra(ctx: StepContext): JoinRateExtra {
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
}
