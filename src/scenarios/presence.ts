/**
 * Seed 002 §5: presence. Connections fill rooms of `members` (one topic each, presence on,
 * one presence key per connection); each tracks right after joining, as apps do, so every
 * join downloads the topic's presence_state and fans a diff out. In the steady state a share
 * of the members sends an update (`track` with a stamped meta) every second, in turn, and the
 * server fans each update out as a presence_diff to every member of its topic, the tracker
 * included: Phoenix.Presence sends the diff with Phoenix.PubSub.local_broadcast, whose `from`
 * is :none, so the dispatcher's `pid == from` skip never matches (phoenix lib/phoenix/presence.ex
 * handle_info → local_broadcast; supabase/realtime RealtimeWeb.Presence uses the same with its
 * MessageDispatcher). Seed §5 agrees: 12,670 deliveries/s at 1,600 updates/s with 8 members is
 * ≈ 7.9 per update, not 7.
 *
 * Expected per update = members of its topic joined at the update's scheduled time.
 * Driver: members² × update rate (seed 002 §5: quota needed = members² × update
 * rate), printed next to
 * the tenant's max_presence_events_per_second and quota ÷ members, the update rate a topic is
 * allowed.
 */
import type { Profile } from '../profile/schema.js';
import type { StepContext } from '../run/step-result.js';
import { countAt, latencySummary, reconnectPolicy, steadySeconds } from './common.js';
import { roomLayout, roomTopic, rotatingSender, type RoomLayout } from './rooms.js';
import { KIND_STRIDE, kindStream, type Scenario, type StepPlan } from './types.js';
import { r3 } from '../util/round.js';

/** Share of members updating per second when a step names none (seed §5's first row: 10 %). */
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

/** The tenant's max_presence_events_per_second, when known (null: unknown or not enforced). */
export function presenceQuota(profile: Profile, builtin: boolean): number | null {
  if (profile.analysis.presence_quota_per_s !== undefined)
    return profile.analysis.presence_quota_per_s;
  if (!builtin) return null;
  const cfg = profile.target.server.config;
  const v = cfg.max_presence_events_per_second;
  if (typeof v === 'number') return v;
  if (v === null) return null;
  // A new Supabase tenant's column default (docs/PROTOCOL.md §8.2), which --supabase-defaults
  // restores.
  return cfg.supabase_defaults === true ? 1000 : null;
}

/**
 * §5's arithmetic for a layout: deliveries/s the quota must cover, and the per-topic update rate it
 * allows.
 */
export function quotaArithmetic(
  layout: Pick<RoomLayout, 'rooms' | 'members'>,
  share: number,
  quotaPerS: number | null,
) {
  const topicUpdatesPerS = layout.members * share;
  return {
    /** Σ over topics of members² × per-member update rate. */
    needed_per_s: layout.rooms * layout.members * layout.members * share,
    topic_updates_per_s: topicUpdatesPerS,
    /** quota ÷ members: one topic's update rate at the whole quota (seed §5 table). */
    allowed_topic_updates_per_s:
      quotaPerS === null || layout.members === 0 ? null : quotaPerS / layout.members,
  };
}

export function presenceExtra(ctx: StepContext): Record<string, unknown> {
  const p = ctx.plan.params;
  const members = Number(p.members_per_topic);
  const rooms = Number(p.topics);
  const share = Number(p.update_share);
  const steadyS = steadySeconds(ctx.window);
  const k = ctx.kinds.presence;
  const f = k?.figures;
  const snaps = { count: 0, bytes: 0, maxBytes: 0, entries: 0 };
  for (const c of ctx.collected) {
    const s = c.presenceSnapshots;
    if (!s) continue;
    snaps.count += s.count;
    snaps.bytes += s.bytes;
    snaps.entries += s.entries;
    snaps.maxBytes = Math.max(snaps.maxBytes, s.maxBytes);
  }
  // Every error naming presence: refused tracks and channels closed by a presence limit (§5.1).
  let presenceErrors = 0;
  for (const c of ctx.collected)
    for (const [reason, n] of Object.entries(c.errors))
      if (/presence|track message/i.test(reason)) presenceErrors += n;
  const quota = presenceQuota(ctx.profile, ctx.builtin);
  const q = quotaArithmetic({ rooms, members }, share, quota);
  return {
    members_per_topic: members,
    topics: rooms,
    update_share_per_s: share,
    presence_updates_per_s: f ? r3(f.sent / steadyS) : null,
    presence_deliveries_per_s: f ? r3(f.received / steadyS) : null,
    presence_latency_ms: latencySummary(k?.deliveryHistogram ?? null),
    // The largest snapshot received: a member joining its topic when (nearly) full.
    snapshot_bytes_per_member: snaps.count > 0 && snaps.maxBytes > 2 ? snaps.maxBytes : null,
    snapshot_bytes_mean: snaps.count > 0 ? Math.round(snaps.bytes / snaps.count) : null,
    snapshot_bytes_per_entry: snaps.entries > 0 ? Math.round(snaps.bytes / snaps.entries) : null,
    snapshots_received: snaps.count,
    presence_errors: presenceErrors,
    presence_track_replies: ctx.collected.reduce((a, c) => a + c.presenceReplies.ok, 0),
    presence_quota_per_s: quota,
    presence_quota_needed_per_s: r3(q.needed_per_s),
    topic_updates_per_s: r3(q.topic_updates_per_s),
    allowed_topic_updates_per_s:
      q.allowed_topic_updates_per_s === null ? null : r3(q.allowed_topic_updates_per_s),
  };
}

export const presence: Scenario = {
  name: 'presence',
  seedSection: '§5 Presence',
  describe:
    'rooms of N members tracking presence, a share of them updating each second: presence deliveries/s, latency, errors, snapshot size, the members² × rate quota arithmetic',
  plan: planPresence,
  extra: presenceExtra,
};
