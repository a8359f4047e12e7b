/**
 * Presence members per topic from the quota arithmetic of docs/METHOD.md §5: one topic may update
 * at most quota ÷ members times a second, so a topic that must update `topic_updates_per_s` times
 * a second may have at most quota ÷ topic_updates_per_s members (at quota 1,000/s: 5 updates/s
 * → 200 members, docs/METHOD.md §7 row 11). The row shows it beside the measured knee and keeps
 * the lower (docs/CAPACITY.md).
 */

/** docs/METHOD.md §5's table is worked at a quota of 1,000/s. */
export const DEFAULT_PRESENCE_QUOTA_PER_S = 1000;
/** The topic update rate behind docs/METHOD.md §7's "≤ 200" at 1,000/s. */
export const DEFAULT_TOPIC_UPDATES_PER_S = 5;

export interface PresenceArithmetic {
  quota_per_s: number;
  topic_updates_per_s: number;
  members: number;
  text: string;
}

export function membersByQuota(quotaPerS: number, topicUpdatesPerS: number): PresenceArithmetic {
  const members = Math.floor(quotaPerS / topicUpdatesPerS + 1e-9);
  return {
    quota_per_s: quotaPerS,
    topic_updates_per_s: topicUpdatesPerS,
    members,
    text: `quota arithmetic (docs/METHOD.md §5): ${quotaPerS.toLocaleString('en-US')}/s ÷ ${topicUpdatesPerS} topic updates/s = ${members.toLocaleString('en-US')} members (a topic of m members needs m² × per-member rate of the quota)`,
  };
}
