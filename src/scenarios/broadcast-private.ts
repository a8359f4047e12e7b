/**
 * docs/METHOD.md §2: private broadcast. Connections join private topics (authorised by RLS, one
 * JWT per user: role + sub) as rooms × members; each room sends at `room_send_rate`, its
 * messages taken in turn by its members, so every member is a sender and a stream of its own.
 *
 * Expected per message: the other members of its room joined at its scheduled time (the
 * sender too with load.self) — rooms × (members − 1) × messages per room when all joined.
 * Drivers: sends/s (authorisation and dispatch), deliveries/s = sends/s × (members − 1)
 * (fan-out), and connections (docs/METHOD.md §2.2, memory).
 *
 * Connection i is member i mod members of room ⌊i / members⌋, so steps with the same members
 * per room grow or shrink by whole rooms on the same connections; a step with another
 * members count is another topology and starts from fresh connections.
 */
import type { Profile } from '../profile/schema.js';
import { countAt, privateTopic, reconnectPolicy, roomTopology, userClaims } from './common.js';
import { KIND_STRIDE } from '../measure/stream-id.js';
import { kindStream, type Scenario, type StepPlan } from './types.js';

export function planBroadcastPrivate(profile: Profile, step: number): StepPlan {
  const s = profile.load.steps[step];
  const { rooms, members, connections } = roomTopology(s);
  if (connections > KIND_STRIDE)
    throw new Error(
      `step ${step + 1}: ${connections} connections: each member is a stream, at most ${KIND_STRIDE} per step`,
    );
  const roomRatePerS = s.room_send_rate ?? (rooms > 0 ? s.send_rate / rooms : 0);
  const sendRatePerS = roomRatePerS * rooms;
  const durationMs = s.duration;
  const joinRatePerS = s.join_rate ?? profile.load.join_rate;
  const payloadBytes = s.payload_bytes ?? profile.load.payload_bytes;
  const count = connections > 0 ? countAt(sendRatePerS, durationMs) : 0;
  const receivers = Math.max(0, profile.load.self ? members : members - 1);
  const topics = Array.from({ length: rooms }, (_, r) => privateTopic(profile, String(r)));
  const roomOf = (conn: number) => Math.floor(conn / members);
  const firstStream = kindStream('broadcast', 0);
  return {
    step,
    label: s.label ?? `${rooms} rooms × ${members}, ${roomRatePerS}/s per room`,
    connections,
    joinRatePerS,
    durationMs,
    payloadBytes,
    topicOf: (conn) => topics[roomOf(conn)],
    joinConfigOf: () => ({ private: true }),
    userClaimsOf: (conn) => userClaims(profile, conn),
    broadcasts: {
      ratePerS: sendRatePerS,
      count,
      // Message k goes to room k mod rooms; a room's messages rotate over its members.
      senderOf: (k) => {
        const room = k % rooms;
        const round = Math.floor(k / rooms);
        const conn = room * members + (round % members);
        return { conn, stream: kindStream('broadcast', conn), seq: Math.floor(round / members) };
      },
    },
    presence: null,
    inserts: null,
    streamInfo: (local) => ({
      key: topics[roomOf(local - firstStream)] ?? '',
      excludeSender: !profile.load.self,
      sender: local - firstStream,
    }),
    primaryKind: 'broadcast',
    reconnect: reconnectPolicy(profile),
    topology: `broadcast-private:${profile.private.topic_prefix}:${members}`,
    params: {
      connections,
      send_rate: sendRatePerS,
      duration_s: durationMs / 1000,
      join_rate: joinRatePerS,
      payload_bytes: payloadBytes,
      rooms,
      members,
      room_send_rate: roomRatePerS,
      receivers,
      deliveries_per_s_target: sendRatePerS * receivers,
    },
  };
}

export const broadcastPrivate: Scenario = {
  name: 'broadcast-private',
  seedSection: 'docs/METHOD.md §2 Broadcast over private channels',
  describe:
    'rooms × members on private (RLS-authorised) topics, each room sending at a rate spread over its members: sends/s, deliveries/s, first-receive latency, delivery, connections vs memory',
  plan: planBroadcastPrivate,
};
