import { describe, expect, it } from 'vitest';
import { ConnectionSet, type ConnMeta } from '../../src/generator/connection-set.js';
import { FakeConnection } from './support/fake-connection.js';

function meta(over: Partial<ConnMeta> = {}): ConnMeta {
  const base = { topic: 't', changesKey: null, scheduledMs: 0, leftAtMs: Infinity, step: 0 };
  return { ...base, token: null, userToken: null, attempt: 0, ...over };
}

function setWithClock() {
  const events = { opened: 0, answered: 0, ended: [] as number[] };
  let clock = 1_000;
  const set = new ConnectionSet<FakeConnection>(
    {
      attemptOpened: () => events.opened++,
      attemptAnswered: () => events.answered++,
      membershipEnded: (c) => events.ended.push(c.index),
    },
    () => clock,
  );
  return { set, events, tick: (ms: number) => (clock += ms) };
}

describe('the connection set', () => {
  it('follows a connection from open through join to a drop, with live counts', () => {
    const { set, events, tick } = setWithClock();
    const c = new FakeConnection(7);
    set.add(c, meta());
    expect(events.opened).toBe(1);
    expect(set.isCurrent(c)).toBe(true);
    c.openedAtMs = 1;
    expect(set.opened(c)?.topic).toBe('t');
    expect(set.openNow).toBe(1);
    set.joined(c, 1_010);
    expect(c.member.joinedAtMs).toBe(1_010);
    expect(set.joining.has(c)).toBe(false);
    expect(events.answered).toBe(1);
    expect(set.joinedNow).toBe(1);
    tick(500);
    expect(set.endMembership(c)).toBe(true);
    expect(set.meta.get(c)?.leftAtMs).toBe(1_500);
    expect(set.joinedNow).toBe(0);
    // A second end (a close after the error) is not a second drop.
    expect(set.endMembership(c)).toBe(false);
    set.closed(c);
    expect(set.openNow).toBe(0);
    expect(events.ended).toEqual([7, 7]);
  });

  it('counts a reconnect as no first attempt, and never a non-member as dropped', () => {
    const { set, events } = setWithClock();
    const c = new FakeConnection(1);
    set.add(c, meta({ attempt: 2 }));
    expect(set.leaveJoining(c)).toBe(true);
    expect(set.leaveJoining(c)).toBe(false);
    expect(events).toMatchObject({ opened: 0, answered: 0 });
    expect(set.endMembership(c)).toBe(false);
    // A socket that never opened does not lower the open count.
    set.closed(c);
    expect(set.openNow).toBe(0);
  });

  it('waits for a Postgres Changes subscription and gives up on it after the join timeout', () => {
    const { set } = setWithClock();
    const c = new FakeConnection(3);
    const plain = new FakeConnection(4);
    set.add(c, meta({ changesKey: 'changes:1' }));
    set.add(plain, meta());
    set.joined(c, 1_000);
    set.joined(plain, 1_000);
    expect([...set.subscribing]).toEqual([c]);
    expect(set.expire(6_000, 5_000)).toEqual([]);
    expect(set.expire(6_001, 5_000)).toEqual([c]);
    expect(set.subscribing.size).toBe(0);
    expect(set.leaveSubscribing(c)).toBe(false);
  });

  it('asks every joining connection to expire its joins', () => {
    const { set } = setWithClock();
    const a = new FakeConnection(0);
    const b = new FakeConnection(1);
    set.add(a, meta());
    set.add(b, meta());
    set.joined(b, 10);
    set.expire(2_000, 500);
    expect(a.joinExpiries).toEqual([{ nowMs: 2_000, timeoutMs: 500 }]);
    expect(b.joinExpiries).toEqual([]);
  });

  it('shrinks to fewer connections, ending the memberships of those closed', () => {
    const { set } = setWithClock();
    const conns = [0, 1, 2, 3].map((i) => new FakeConnection(i));
    for (const c of conns) {
      set.add(c, meta());
      set.joined(c, 5);
    }
    set.shrink(2);
    expect([...set.byIndex.keys()]).toEqual([0, 1]);
    expect(conns[2].closes).toEqual([{ code: 1000, reason: 'step shrink' }]);
    expect(conns[1].closes).toEqual([]);
    expect(set.meta.get(conns[3])?.leftAtMs).toBe(1_000);
    expect(set.joinedNow).toBe(2);
    expect(set.isCurrent(conns[3])).toBe(false);
  });

  it('heartbeats each connection once per round of slots', () => {
    const { set } = setWithClock();
    const conns = [0, 1, 2, 3, 4].map((i) => new FakeConnection(i));
    for (const c of conns) set.add(c, meta());
    for (let slot = 0; slot < 3; slot++) set.heartbeat(slot, 3);
    expect(conns.map((c) => c.heartbeats)).toEqual([1, 1, 1, 1, 1]);
    set.heartbeat(1, 3);
    expect(conns.map((c) => c.heartbeats)).toEqual([1, 2, 1, 1, 2]);
  });

  it('heartbeats at once the connections whose last heartbeat was answered, the others when asked later', () => {
    const { set } = setWithClock();
    const conns = [0, 1, 2].map((i) => new FakeConnection(i));
    for (const c of conns) set.add(c, meta());
    expect(set.heartbeat(0, 1)).toBeNull();
    expect(conns.map((c) => c.heartbeats)).toEqual([1, 1, 1]);
    conns[1].heartbeatAwaited = true;
    const later = set.heartbeat(0, 1);
    expect(conns.map((c) => c.heartbeats)).toEqual([2, 1, 2]);
    later!();
    expect(conns.map((c) => c.heartbeats)).toEqual([2, 2, 2]);
  });

  it('reports the step membership per topic and changes key, then forgets the closed', () => {
    const { set } = setWithClock();
    const old = new FakeConnection(0);
    const member = new FakeConnection(1);
    const never = new FakeConnection(2);
    set.add(old, meta({ step: 0, topic: 'a' }));
    set.add(member, meta({ step: 1, topic: 'a', changesKey: 'k' }));
    set.add(never, meta({ step: 1, topic: 'b' }));
    set.joined(old, 100);
    set.endMembership(old);
    old.state = 'closed';
    set.joined(member, 200);
    member.member.subscribedAtMs = 250;
    member.state = 'open';
    const end = set.endOfStep(1);
    expect(end.membership).toEqual({
      a: [
        { joinedAtMs: 100, leftAtMs: 1_000 },
        { joinedAtMs: 200, leftAtMs: Infinity },
      ],
      k: [{ joinedAtMs: 250, leftAtMs: Infinity }],
    });
    expect(end).toMatchObject({ openAtEnd: 1, joinedAtEnd: 1 });
    // Reported once: the connection closed in an earlier step is gone from the next report.
    expect(set.meta.has(old)).toBe(false);
    expect(set.endOfStep(1).membership.a).toEqual([{ joinedAtMs: 200, leftAtMs: Infinity }]);
  });

  it('closes every connection at the end', () => {
    const { set } = setWithClock();
    const conns = [0, 1].map((i) => new FakeConnection(i));
    for (const c of conns) set.add(c, meta());
    set.closeAll('rtcap done');
    expect(conns.map((c) => c.closes)).toEqual([
      [{ code: 1000, reason: 'rtcap done' }],
      [{ code: 1000, reason: 'rtcap done' }],
    ]);
  });
});
