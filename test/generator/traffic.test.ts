import { describe, expect, it } from 'vitest';
import { BenchSender, joinPayload, usesBinaryBroadcast } from '../../src/generator/traffic.js';
import type { Connection } from '../../src/client/connection.js';
import { profileFrom } from '../support/profiles.js';

const profile = (target: Record<string, unknown> = {}, load: Record<string, unknown> = {}) =>
  profileFrom({
    name: 'traffic-test',
    scenario: 'broadcast-public',
    target: { url: 'ws://127.0.0.1:4000/socket/websocket', ...target },
    load: { steps: [{ connections: 2, duration: 1 }], ...load },
  });

describe('joinPayload: supabase dialect (docs/PROTOCOL.md §3.1)', () => {
  it('the config shape with defaults and the token', () => {
    expect(joinPayload(profile(), { private: false }, 'eyJtoken')).toEqual({
      config: {
        broadcast: { ack: false, self: false },
        presence: { key: '', enabled: false },
        postgres_changes: [],
        private: false,
      },
      access_token: 'eyJtoken',
    });
  });

  it('ack, self, presence, postgres_changes and private are carried over', () => {
    const changes = [
      { event: 'INSERT', schema: 'public', table: 'messages', filter: 'room_id=eq.7' },
    ];
    const p = joinPayload(
      profile({}, { ack: true, self: true }),
      { private: true, presenceKey: 'user-42', presenceEnabled: true, postgresChanges: changes },
      't',
    );
    expect(p).toEqual({
      config: {
        broadcast: { ack: true, self: true },
        presence: { key: 'user-42', enabled: true },
        postgres_changes: changes,
        private: true,
      },
      access_token: 't',
    });
  });

  it('no access_token key at all without a token', () => {
    for (const token of [null, '']) {
      const p = joinPayload(profile(), { private: false }, token) as Record<string, unknown>;
      expect(Object.keys(p)).toEqual(['config']);
    }
  });
});

describe('joinPayload: phoenix dialect', () => {
  it("is the profile's join payload, verbatim, with no Supabase keys and no token", () => {
    const pr = profile({
      dialect: 'phoenix',
      topic: 'room:lobby',
      join_payload: { user: 'bench', n: 1 },
    });
    expect(joinPayload(pr, { private: true, presenceEnabled: true }, 'eyJtoken')).toEqual({
      user: 'bench',
      n: 1,
    });
  });
  it('defaults to an empty payload', () => {
    expect(joinPayload(profile({ dialect: 'phoenix' }), { private: false }, null)).toEqual({});
  });
});

describe('usesBinaryBroadcast', () => {
  it.each([
    [{ vsn: '2.0.0' }, true],
    [{ vsn: '2.0.0', binary_broadcast: true }, true],
    [{ vsn: '2.0.0', binary_broadcast: false }, false],
    [{ vsn: '1.0.0' }, false],
    [{ vsn: '1.0.0', binary_broadcast: true }, false],
    [{ vsn: '2.0.0', dialect: 'phoenix' }, false],
    [{ vsn: '2.0.0', dialect: 'phoenix', binary_broadcast: true }, false],
  ])('%j → %s', (target, expected) => {
    expect(usesBinaryBroadcast(profile(target))).toBe(expected);
  });
});

describe('BenchSender', () => {
  type Call = {
    topic: string;
    event: string;
    payload: unknown;
    ack: boolean;
    binary?: { userEvent: string; inner: unknown };
  };
  const fakeConnection = (calls: Call[], ok = true) =>
    ({
      push(
        topic: string,
        event: string,
        payload: unknown,
        ack: boolean,
        binary?: { userEvent: string; inner: unknown },
      ) {
        calls.push({ topic, event, payload, ack, ...(binary ? { binary } : {}) });
        return ok;
      },
    }) as unknown as Connection;

  it('supabase over vsn 2.0.0: a kind-3 user broadcast of the stamp, padded to payload_bytes', () => {
    const calls: Call[] = [];
    const s = new BenchSender(
      profile({ vsn: '2.0.0', broadcast_event: 'bench' }, { ack: true }),
      100,
    );
    expect(s.send(fakeConnection(calls), 'realtime:bench', 7, 3, 1000.5)).toBe(true);
    expect(calls).toHaveLength(1);
    const [c] = calls;
    expect(c).toMatchObject({
      topic: 'realtime:bench',
      event: 'broadcast',
      payload: null,
      ack: true,
    });
    expect(c.binary!.userEvent).toBe('bench');
    expect(c.binary!.inner).toMatchObject({ id: 3, s: 7, t: 1000.5 });
    expect(JSON.stringify(c.binary!.inner).length).toBe(100);
  });

  it('supabase over vsn 1.0.0: the JSON broadcast envelope', () => {
    const calls: Call[] = [];
    new BenchSender(profile({ vsn: '1.0.0' }), 64).send(
      fakeConnection(calls),
      'realtime:bench',
      0,
      0,
      5,
    );
    expect(calls[0]).toMatchObject({
      event: 'broadcast',
      ack: false,
      payload: { type: 'broadcast', event: 'bench', payload: { id: 0, s: 0, t: 5 } },
    });
    expect(calls[0].binary).toBeUndefined();
  });

  it('phoenix: the stamp is the whole payload of the push event, never acked', () => {
    const calls: Call[] = [];
    const pr = profile({ dialect: 'phoenix', vsn: '2.0.0', push_event: 'new_msg' }, { ack: true });
    new BenchSender(pr, 64).send(fakeConnection(calls), 'room:lobby', 1, 2, 5);
    expect(calls[0]).toMatchObject({
      topic: 'room:lobby',
      event: 'new_msg',
      ack: false,
      payload: { id: 2, s: 1, t: 5 },
    });
    expect(calls[0].binary).toBeUndefined();
  });

  it('reports a connection that cannot send', () => {
    expect(
      new BenchSender(profile(), 64).send(fakeConnection([], false), 'realtime:bench', 0, 0, 5),
    ).toBe(false);
  });
});
