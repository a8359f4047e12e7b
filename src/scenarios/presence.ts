/**
 * docs/METHOD.md §5: presence. Connections fill rooms of `members` (one topic each, presence on,
 * one presence key per connection); each tracks right after joining, as apps do, so every
 * join downloads the topic's presence_state and fans a diff out. In the steady state a share
 * of the members sends an update (`track` with a stamped meta) every second, in turn, and the
 * server fans each update out as a presence_diff to every member of its topic, the tracker
 * included: Phoenix.Presence sends the diff with Phoenix.PubSub.local_broadcast, whose `from`
 * is :none, so the dispatcher's `pid == from` skip never matches (phoenix lib/phoenix/presence.ex
 * handle_info → local_broadcast; supabase/realtime RealtimeWeb.Presence uses the same with its
 * MessageDispatcher). docs/METHOD.md §5 agrees: 12,670 deliveries/s at 1,600 updates/s with 8
 * members is ≈ 7.9 per update, not 7.
 *
 * Expected per update = members of its topic joined at the update's scheduled time.
 * Driver: members² × update rate (docs/METHOD.md §5: quota needed = members² × update
 * rate), printed next to
 * the tenant's max_presence_events_per_second and quota ÷ members, the update rate a topic is
 * allowed.
 */
import type { Profile } from '../profile/schema.js';
import { countAt, reconnectPolicy } from './common.js';
import { roomLayout, roomTopic, rotatingSender } from './rooms.js';
import { KIND_STRIDE } from '../measure/stream-id.js';
import { kindStream, type Scenario, type StepPlan } from './types.js';
import { r3 } from '../util/round.js';

/**
 * Share of members updating per second when a step names none (docs/METHOD.md §5's first row: 10
 * %).
 */
export const DEFAULT_UPDATE_SHARE = 0.1;

export function planPresence(profile: Profile, step: number): StepPlan {
  const s = profile.load.steps[step];
  const layout = roomLayout(s, step);
  const { connections, rooms, members } = layout;
  if (connections > KIND_STRIDE)
    throw new Error(
      `load.steps.${step}: presence holds at most ${KIND_STRIDE} connections per step (one update stream each)`,
    );
  const share = s.update_share ?? DEFAULT_UPDATE_SHARE;
  const durationMs = s.duration;
  const joinRatePerS = s.join_rate ?? profile.load.join_rate;
  const payloadBytes = s.payload_bytes ?? profile.load.payload_bytes;
  const updatesPerS = connections * share;
  const count = connections > 0 ? countAt(updatesPerS, durationMs) : 0;
  const topicOf = (conn: number) => roomTopic(profile, Math.floor(conn / members));
  return {
    step,
    label: s.label ?? `${rooms} × ${members} members, ${r3(share * 100)}% updating/s`,
    connections,
    joinRatePerS,
    durationMs,
    payloadBytes,
    topicOf,
    joinConfigOf: (conn) => ({
      private: false,
      presenceKey: `member-${conn}`,
      presenceEnabled: true,
      presenceTrackOnJoin: true,
    }),
    broadcasts: null,
    presence: {
      ratePerS: updatesPerS,
      count,
      senderOf: (k) => {
        const r = rotatingSender(k, layout);
        return { conn: r.conn, stream: kindStream('presence', r.conn), seq: r.seq };
      },
    },
    inserts: null,
    streamInfo: (local) => ({
      key: topicOf(local - kindStream('presence', 0)),
      excludeSender: false,
      sender: local - kindStream('presence', 0),
    }),
    primaryKind: 'presence',
    reconnect: reconnectPolicy(profile),
    topology: `presence:${members}`,
    params: {
      connections,
      send_rate: r3(updatesPerS),
      duration_s: durationMs / 1000,
      join_rate: joinRatePerS,
      payload_bytes: payloadBytes,
      topics: rooms,
      members_per_topic: members,
      update_share: share,
      updates_per_s: r3(updatesPerS),
      deliveries_per_s_target: r3(updatesPerS * members),
    },
  };
}

export const presence: Scenario = {
  name: 'presence',
  seedSection: 'docs/METHOD.md §5 Presence',
  describe:
    'rooms of N members tracking presence, a share of them updating each second: presence deliveries/s, latency, errors, snapshot size, the members² × rate quota arithmetic',
  plan: planPresence,
};
