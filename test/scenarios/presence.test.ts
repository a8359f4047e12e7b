import { describe, expect, it } from 'vitest';
import { planPresence, DEFAULT_UPDATE_SHARE } from '../../src/scenarios/presence.js';
import { roomLayout, rotatingSender } from '../../src/scenarios/rooms.js';
import { kindOfStream, kindStream } from '../../src/scenarios/types.js';
import { profileFrom } from '../support/profiles.js';

const profile = (steps: Record<string, unknown>[], extra: Record<string, unknown> = {}) =>
  profileFrom({ name: 'presence-test', scenario: 'presence', load: { steps }, ...extra });

describe('presence plan (seed §5)', () => {
  it('fills rooms of `members` in order, one topic and one presence key per connection, tracked at join', () => {
    const plan = planPresence(
      profile([{ connections: 24, members: 8, update_share: 0.25, duration: 4 }]),
      0,
    );
    expect(plan.connections).toBe(24);
    expect([0, 7, 8, 15, 16, 23].map(plan.topicOf)).toEqual([
      'realtime:bench-0',
      'realtime:bench-0',
      'realtime:bench-1',
      'realtime:bench-1',
      'realtime:bench-2',
      'realtime:bench-2',
    ]);
    expect(plan.joinConfigOf(9)).toEqual({
      private: false,
      presenceKey: 'member-9',
      presenceEnabled: true,
      presenceTrackOnJoin: true,
    });
    expect(plan.primaryKind).toBe('presence');
    expect(plan.broadcasts).toBeNull();
    expect(plan.inserts).toBeNull();
    expect(plan.params).toMatchObject({
      topics: 3,
      members_per_topic: 8,
      update_share: 0.25,
      updates_per_s: 6,
      deliveries_per_s_target: 48,
    });
  });

  it('every member updates at update_share per second, each on its own stream with seqs 0, 1, 2, …', () => {
    const plan = planPresence(
      profile([{ connections: 24, members: 8, update_share: 0.25, duration: 4 }]),
      0,
    );
    const p = plan.presence!;
    expect(p.ratePerS).toBe(6);
    expect(p.count).toBe(24); // 6/s × 4 s: one update per member
    const bySender = new Map<number, number[]>();
    for (let k = 0; k < p.count; k++) {
      const s = p.senderOf(k);
      expect(kindOfStream(s.stream)).toBe('presence');
      expect(s.stream).toBe(kindStream('presence', s.conn));
      bySender.set(s.conn, [...(bySender.get(s.conn) ?? []), s.seq]);
    }
    expect(bySender.size).toBe(24);
    for (const seqs of bySender.values()) expect(seqs).toEqual([0]);
    // Consecutive updates go to different rooms.
    expect([0, 1, 2].map((k) => plan.topicOf(p.senderOf(k).conn))).toEqual([
      'realtime:bench-0',
      'realtime:bench-1',
      'realtime:bench-2',
    ]);
  });

  it("an update is expected at every member of its sender's topic, the tracker included (Phoenix local_broadcast, from = :none)", () => {
    const plan = planPresence(profile([{ connections: 16, members: 8, duration: 1 }]), 0);
    const s = plan.presence!.senderOf(3);
    expect(plan.streamInfo(s.stream)).toEqual({
      key: plan.topicOf(s.conn),
      excludeSender: false,
      sender: s.conn,
    });
  });

  it('defaults to 10 % updating, one room of every connection', () => {
    const plan = planPresence(profile([{ connections: 10, duration: 2 }]), 0);
    expect(DEFAULT_UPDATE_SHARE).toBe(0.1);
    expect(plan.params).toMatchObject({ topics: 1, members_per_topic: 10, update_share: 0.1 });
    expect(plan.presence!.count).toBe(2);
  });

  it('a step with rooms of another size is a new topology; more rooms of the same size is not', () => {
    const p = profile([
      { connections: 16, members: 8, duration: 1 },
      { connections: 24, members: 8, duration: 1 },
      { connections: 400, members: 200, duration: 1 },
    ]);
    const [a, b, c] = [0, 1, 2].map((i) => planPresence(p, i));
    expect(a.topology).toBe(b.topology);
    expect(c.topology).not.toBe(b.topology);
    // Growing by whole rooms keeps the earlier connections in their rooms.
    for (let i = 0; i < 16; i++) expect(b.topicOf(i)).toBe(a.topicOf(i));
  });

  it('refuses partial rooms and inconsistent sizes', () => {
    expect(() => planPresence(profile([{ connections: 20, members: 8, duration: 1 }]), 0)).toThrow(
      /multiple of members/,
    );
    expect(() =>
      planPresence(profile([{ connections: 20, rooms: 2, members: 8, duration: 1 }]), 0),
    ).toThrow(/rooms × members/);
  });
});

describe('rotatingSender', () => {
  it("visits every connection once per round and counts each one's messages", () => {
    const layout = roomLayout(
      { connections: 12, rooms: 3, members: 4, duration: 1, send_rate: 0 } as never,
      0,
    );
    const seen = new Set<number>();
    for (let k = 0; k < 12; k++) seen.add(rotatingSender(k, layout).conn);
    expect(seen.size).toBe(12);
    expect(rotatingSender(12, layout)).toEqual({ conn: rotatingSender(0, layout).conn, seq: 1 });
  });
});
