/**
 * docs/METHOD.md §5 presence's figures (StepResult.extra): updates and presence_diff deliveries per
 * second, their latency, snapshot sizes, presence errors, and the members² × rate quota arithmetic
 * beside the tenant's max_presence_events_per_second.
 */
import type { Profile } from '../profile/schema.js';
import type { PresenceExtra } from '../result/extra.js';
import type { RoomLayout } from '../scenarios/rooms.js';
import { firstTenantLimits } from '../builtin/config.js';
import { steadySeconds } from '../measure/steady-seconds.js';
import { r3 } from '../util/round.js';
import { latencySummary } from './extra-common.js';
import type { StepContext } from './step-context.js';

/**
 * The tenant's max_presence_events_per_second, when known (null: unknown or not enforced): as
 * declared, or what the built-in server enforces under its config (the server's options module:
 * none by default, a new Supabase tenant's value with `supabase_defaults`).
 */
export function presenceQuota(profile: Profile, builtin: boolean): number | null {
  if (profile.analysis.presence_quota_per_s !== undefined)
    return profile.analysis.presence_quota_per_s;
  if (!builtin) return null;
  return firstTenantLimits(profile.target.server.config)?.max_presence_events_per_second ?? null;
}

/**
 * docs/METHOD.md §5's arithmetic for a layout: deliveries/s the quota must cover, and the per-topic
 * update rate it allows.
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
    /** quota ÷ members: one topic's update rate at the whole quota (docs/METHOD.md §5 table). */
    allowed_topic_updates_per_s:
      quotaPerS === null || layout.members === 0 ? null : quotaPerS / layout.members,
  };
}

export function presenceExtra(ctx: StepContext): PresenceExtra {
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
  // Every error naming presence: refused tracks and channels closed by a presence limit
  // (docs/PROTOCOL.md §5.1).
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
  } satisfies Required<PresenceExtra>;
}
