/**
 * docs/METHOD.md §4: connection and authorisation rate. Each step opens its own fresh connections
 * (the previous step's are closed first) at its join rate, every one joining the step's
 * private topic (`<private.topic_prefix>s<step>`, e.g. `slow-s3`) with its own JWT, so each
 * join costs one RLS read check on the server's authorisation pool (docs/PROTOCOL.md §6.2). Past
 * db_pool ÷ check time the pool's queue overflows and the server refuses every check for its
 * error window: `IncreaseConnectionPool: Please increase your connection pool size`
 * (docs/PROTOCOL.md §6.4).
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
 * delivery 0 (docs/METHOD.md §4 at 130/s: nothing delivered).
 */
import type { Profile } from '../profile/schema.js';
import { countAt, privateTopic, reconnectPolicy, userClaims } from './common.js';
import { kindStream, type Scenario, type StepPlan } from './types.js';

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

export const joinRate: Scenario = {
  name: 'join-rate',
  seedSection: 'docs/METHOD.md §4 Connection and authorisation rate',
  describe:
    'private joins at a fixed rate per step on fresh connections: join success, rejections by reason, recovery, reconnects with backoff and jitter, the pool ceiling predicted and measured',
  plan: planJoinRate,
};
