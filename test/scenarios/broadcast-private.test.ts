import { describe, expect, it } from 'vitest';
import { broadcastPrivateProfile as profile } from '../support/scenario-profiles.js';
import { planBroadcastPrivate } from '../../src/scenarios/broadcast-private.js';
import { roomTopology } from '../../src/scenarios/common.js';
import { kindStream } from '../../src/scenarios/types.js';
import { profileFrom } from '../support/profiles.js';

describe('broadcast-private plan', () => {
  const p = profile([{ connections: 12, rooms: 3, members: 4, room_send_rate: 2, duration: '5s' }]);
  const plan = planBroadcastPrivate(p, 0);

  it('puts connection i in room ⌊i / members⌋ on a private topic, each with its own user token', () => {
    expect(plan.connections).toBe(12);
    expect([0, 3, 4, 11].map((i) => plan.topicOf(i))).toEqual([
      'realtime:room-0',
      'realtime:room-0',
      'realtime:room-1',
      'realtime:room-2',
    ]);
    expect(plan.joinConfigOf(5)).toEqual({ private: true });
    expect(plan.userClaimsOf!(7)).toEqual({ role: 'authenticated', sub: 'user-7' });
    expect(plan.label).toBe('3 rooms × 4, 2/s per room');
    expect(plan.params).toMatchObject({
      connections: 12,
      rooms: 3,
      members: 4,
      room_send_rate: 2,
      send_rate: 6,
      receivers: 3,
      deliveries_per_s_target: 18,
      duration_s: 5,
    });
  });

  it("sends room_send_rate per room, rotating over the room's members, each member its own stream", () => {
    const b = plan.broadcasts!;
    expect(b.ratePerS).toBe(6);
    expect(b.count).toBe(30);
    const perRoom = [0, 0, 0];
    const seqs = new Map<number, number[]>();
    for (let k = 0; k < b.count; k++) {
      const s = b.senderOf(k);
      expect(s.stream).toBe(kindStream('broadcast', s.conn));
      const room = Math.floor(s.conn / 4);
      perRoom[room]++;
      // The sender is a member of the topic its stream is counted against.
      expect(plan.streamInfo(s.stream)).toEqual({
        key: plan.topicOf(s.conn),
        excludeSender: true,
        sender: s.conn,
      });
      seqs.set(s.stream, [...(seqs.get(s.stream) ?? []), s.seq]);
    }
    expect(perRoom).toEqual([10, 10, 10]);
    // 10 messages over 4 members: 3, 3, 2, 2 — each stream numbered 0, 1, 2 … without gaps.
    expect([...seqs.values()].map((x) => x.length).sort()).toEqual([
      2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3,
    ]);
    for (const list of seqs.values()) expect(list).toEqual(list.map((_, i) => i));
  });

  it('expects rooms × (members − 1) × messages per room when every member is joined', () => {
    const b = plan.broadcasts!;
    let expected = 0;
    for (let k = 0; k < b.count; k++)
      expected += 4 - (plan.streamInfo(b.senderOf(k).stream).excludeSender ? 1 : 0);
    expect(expected).toBe(3 * (4 - 1) * 10);
  });

  it('keeps connections across steps with the same members per room, and starts fresh when it changes', () => {
    const q = profile([
      { connections: 16, rooms: 2, members: 8, room_send_rate: 5, duration: '2s' },
      { connections: 32, rooms: 4, members: 8, room_send_rate: 5, duration: '2s' },
      { connections: 32, rooms: 16, members: 2, room_send_rate: 2.5, duration: '2s' },
    ]);
    const [a, b, c] = [0, 1, 2].map((i) => planBroadcastPrivate(q, i));
    expect(a.topology).toBe(b.topology);
    expect(c.topology).not.toBe(b.topology);
    // A connection of the first step keeps its room when the second adds rooms.
    for (let i = 0; i < 16; i++) expect(b.topicOf(i)).toBe(a.topicOf(i));
    expect(c.params).toMatchObject({ rooms: 16, members: 2, send_rate: 40, receivers: 1 });
  });

  it('takes send_rate as the total when no room rate is given, and counts the sender with self', () => {
    const q = profile([{ connections: 10, rooms: 5, send_rate: 20, duration: '1s' }], {});
    const plan2 = planBroadcastPrivate(q, 0);
    expect(plan2.params).toMatchObject({ rooms: 5, members: 2, room_send_rate: 4, send_rate: 20 });
    const selfP = profileFrom({
      name: 's',
      scenario: 'broadcast-private',
      load: {
        self: true,
        steps: [{ connections: 8, members: 4, room_send_rate: 1, duration: '1s' }],
      },
    });
    const s = planBroadcastPrivate(selfP, 0);
    expect(s.streamInfo(kindStream('broadcast', 0)).excludeSender).toBe(false);
    expect(s.params.receivers).toBe(4);
  });

  it("uses the profile's private section for topics and claims", () => {
    const q = profile([{ connections: 4, members: 2, room_send_rate: 1, duration: '1s' }], {
      private: { topic_prefix: 'bench-', role: 'member', sub_prefix: 'u' },
    });
    const plan2 = planBroadcastPrivate(q, 0);
    expect(plan2.topicOf(3)).toBe('realtime:bench-1');
    expect(plan2.userClaimsOf!(3)).toEqual({ role: 'member', sub: 'u3' });
  });
});

describe('roomTopology', () => {
  const step = (o: Record<string, number>) =>
    ({ duration: 1000, send_rate: 0, connections: 0, ...o }) as Parameters<typeof roomTopology>[0];
  it('rooms × members when both are given; whole rooms from connections otherwise', () => {
    expect(roomTopology(step({ connections: 4000, rooms: 500, members: 8 }))).toEqual({
      rooms: 500,
      members: 8,
      connections: 4000,
    });
    expect(roomTopology(step({ connections: 4001, rooms: 2000 }))).toEqual({
      rooms: 2000,
      members: 2,
      connections: 4000,
    });
    expect(roomTopology(step({ connections: 17, members: 8 }))).toEqual({
      rooms: 2,
      members: 8,
      connections: 16,
    });
    expect(roomTopology(step({ connections: 30 }))).toEqual({
      rooms: 1,
      members: 30,
      connections: 30,
    });
    expect(roomTopology(step({ connections: 3, members: 8 }))).toEqual({
      rooms: 0,
      members: 0,
      connections: 0,
    });
  });
});
