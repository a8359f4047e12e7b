/**
 * docs/METHOD.md §6: Postgres Changes. N subscribers join room topics with one `postgres_changes`
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
import type { Profile } from '../profile/schema.js';
import {
  changeRows,
  changesBinding,
  changesKey,
  changesPerRound,
  subscriberClaims,
} from './changes.js';
import { reconnectPolicy } from './common.js';
import { roomTopic } from './rooms.js';
import { kindStream, type Scenario, type StepPlan } from './types.js';

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

export const postgresChanges: Scenario = {
  name: 'postgres-changes',
  seedSection: 'docs/METHOD.md §6 Postgres Changes',
  describe:
    'N subscribers with a postgres_changes binding (filtered or not), rows inserted through pg in rounds: subscription reconciliation, deliveries per round, latency from insert and commit, poller peak',
  plan: planPostgresChanges,
};
