/**
 * Who was a member of what during the step: membership intervals merged across generator
 * processes by key (a topic, or `changes:<group>` for Postgres Changes subscriptions).
 */
import { Membership, type MemberInterval } from '../measure/membership.js';
import type { StreamInfo } from '../measure/aggregate.js';
import type { StepPlan } from '../scenarios/types.js';

export type MembershipIntervals = Map<string, MemberInterval[]>;

/** Joins every process's intervals per key. */
export function mergeMemberships(
  perProcess: ReadonlyArray<{ membership: Record<string, MemberInterval[]> }>,
): MembershipIntervals {
  const byKey: MembershipIntervals = new Map();
  for (const c of perProcess) {
    for (const [key, list] of Object.entries(c.membership)) {
      const all = byKey.get(key);
      if (all) all.push(...list);
      else byKey.set(key, [...list]);
    }
  }
  return byKey;
}

/**
 * Members during the measurement: joined by `atMs` (the start of the steady window) and not
 * gone by then. Postgres Changes subscriptions are not connections' memberships of a topic.
 */
export function membersAt(byKey: MembershipIntervals, atMs: number): number {
  let n = 0;
  for (const [key, list] of byKey) {
    if (key.startsWith('changes:')) continue;
    for (const i of list) if (i.joinedAtMs <= atMs && i.leftAtMs > atMs) n++;
  }
  return n;
}

/** The recipients of each stream (the membership of its key, built once per key). */
export function streamInfoOf(
  plan: Pick<StepPlan, 'streamInfo'>,
  byKey: MembershipIntervals,
): (stream: number) => StreamInfo {
  const memberships = new Map<string, Membership>();
  const membershipOf = (key: string) => {
    let m = memberships.get(key);
    if (!m) memberships.set(key, (m = new Membership(byKey.get(key) ?? [])));
    return m;
  };
  return (stream) => {
    const s = plan.streamInfo(stream);
    return { membership: membershipOf(s.key), self: !s.excludeSender, sender: s.sender };
  };
}
