/**
 * Presence on the built-in server (docs/PROTOCOL.md §5): presence_state after join, presence_diff
 * with joins/leaves/metas/phx_ref, the tracker included (Phoenix.Presence local_broadcast has no
 * `from`), the per-channel client limit; and
 * realtime-js presence sync between several clients.
 */
import { RealtimeClient, type RealtimeChannel } from '@supabase/realtime-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { RunningServer } from '../../src/server/server.js';
import { RawClient, serve, token, until } from '../server/helpers.js';

let srv: RunningServer;
beforeAll(async () => {
  srv = await serve({ config: { max_payload_size_in_kb: 1 } });
});
afterAll(() => srv.close());

type Diff = {
  joins: Record<string, { metas: Record<string, unknown>[] }>;
  leaves: Record<string, { metas: Record<string, unknown>[] }>;
};

async function member(topic: string, key: string, enabled = true): Promise<RawClient> {
  const c = await RawClient.open(srv.port, { vsn: '2.0.0' });
  c.send(['1', '1', topic, 'phx_join', { config: { presence: { key, enabled } } }]);
  await c.v2('phx_reply', '1');
  return c;
}

const diffs = (c: RawClient) =>
  c.frames
    .filter((f) => Array.isArray(f.json) && f.json[3] === 'presence_diff')
    .map((f) => (f.json as unknown[])[4] as Diff);

describe('presence', () => {
  it('pushes presence_state after join and presence_diff to every member, the tracker included', async () => {
    const topic = 'realtime:pres1';
    const a = await member(topic, 'alice');
    expect(await a.v2('presence_state')).toEqual(['1', null, topic, 'presence_state', {}]);
    const b = await member(topic, 'bob');
    await b.v2('presence_state');
    a.send([
      '1',
      '2',
      topic,
      'presence',
      { type: 'presence', event: 'track', payload: { user: 'alice', online_at: 't0' } },
    ]);
    expect(await a.v2('phx_reply', '2')).toEqual([
      '1',
      '2',
      topic,
      'phx_reply',
      { status: 'ok', response: {} },
    ]);
    await until(() => diffs(b).length === 1);
    const d = diffs(b)[0];
    expect(Object.keys(d.joins)).toEqual(['alice']);
    expect(d.leaves).toEqual({});
    const meta = d.joins.alice.metas[0];
    expect(meta).toMatchObject({ user: 'alice', online_at: 't0' });
    expect(meta.phx_ref).toMatch(/^F-/);
    // A late joiner sees the current state.
    const c = await member(topic, 'carol');
    const state = (await c.v2('presence_state'))[4];
    expect(state).toEqual({
      alice: { metas: [{ user: 'alice', online_at: 't0', phx_ref: meta.phx_ref }] },
    });
    // An update is a join with phx_ref_prev plus a leave of the old meta.
    a.send([
      '1',
      '3',
      topic,
      'presence',
      { type: 'presence', event: 'TRACK', payload: { user: 'alice', online_at: 't1' } },
    ]);
    await a.v2('phx_reply', '3');
    await until(() => diffs(b).length === 2);
    const upd = diffs(b)[1];
    expect(upd.joins.alice.metas[0]).toMatchObject({ online_at: 't1', phx_ref_prev: meta.phx_ref });
    expect(upd.leaves.alice.metas[0]).toEqual({
      user: 'alice',
      online_at: 't0',
      phx_ref: meta.phx_ref,
    });
    // Tracking the identical payload again is a no-op that still replies ok.
    a.send([
      '1',
      '4',
      topic,
      'presence',
      { type: 'presence', event: 'track', payload: { user: 'alice', online_at: 't1' } },
    ]);
    await a.v2('phx_reply', '4');
    a.send(['1', '5', topic, 'presence', { type: 'presence', event: 'untrack' }]);
    await a.v2('phx_reply', '5');
    await until(() => diffs(b).length === 3);
    expect(Object.keys(diffs(b)[2].leaves)).toEqual(['alice']);
    // The tracker got the same three diffs as everyone else, in the same order.
    await until(() => diffs(a).length === 3);
    expect(diffs(a)).toEqual(diffs(b));
    for (const x of [a, b, c]) x.close();
  });

  it('sends a leave when a tracking socket goes away', async () => {
    const topic = 'realtime:pres2';
    const a = await member(topic, 'a');
    const b = await member(topic, 'b');
    a.send(['1', '2', topic, 'presence', { type: 'presence', event: 'track', payload: { n: 1 } }]);
    await until(() => diffs(b).length === 1);
    a.close();
    await until(() => diffs(b).length === 2);
    expect(Object.keys(diffs(b)[1].leaves)).toEqual(['a']);
    b.close();
  });

  it('enables presence with the first track and then syncs the state', async () => {
    const topic = 'realtime:pres3';
    const a = await member(topic, 'a');
    a.send(['1', '2', topic, 'presence', { type: 'presence', event: 'track', payload: { n: 1 } }]);
    await a.v2('phx_reply', '2');
    const b = await member(topic, 'b', false);
    b.send(['1', '2', topic, 'presence', { type: 'presence', event: 'track', payload: { n: 2 } }]);
    await b.v2('phx_reply', '2');
    const state = (await b.v2('presence_state'))[4] as Record<string, unknown>;
    expect(Object.keys(state).sort()).toEqual(['a', 'b']);
    // Its state came after the reply, as :sync_presence follows the track.
    const idx = (ev: string) =>
      b.frames.findIndex(
        (f) =>
          Array.isArray(f.json) && f.json[3] === ev && (ev !== 'phx_reply' || f.json[1] === '2'),
      );
    expect(idx('phx_reply')).toBeLessThan(idx('presence_state'));
    a.close();
    b.close();
  });

  it('answers bad presence pushes with the documented errors', async () => {
    const topic = 'realtime:pres4';
    const a = await member(topic, 'a');
    a.send([
      '1',
      '2',
      topic,
      'presence',
      { type: 'presence', event: 'track', payload: 'not a map' },
    ]);
    expect((await a.v2('phx_reply', '2'))[4]).toEqual({
      status: 'error',
      response: { reason: 'Presence track payload must be a map' },
    });
    a.send(['1', '3', topic, 'presence', { type: 'presence', event: 'wave' }]);
    expect((await a.v2('phx_reply', '3'))[4]).toEqual({ status: 'error', response: {} });
    a.send(['1', '4', topic, 'presence', { type: 'presence' }]);
    expect((await a.v2('phx_reply', '4'))[4]).toEqual({ status: 'ok', response: {} });
    a.close();
  });

  it('closes the channel on a track over the payload limit', async () => {
    const topic = 'realtime:pres5';
    const a = await member(topic, 'a');
    a.send([
      '1',
      '2',
      topic,
      'presence',
      { type: 'presence', event: 'track', payload: { pad: 'x'.repeat(2000) } },
    ]);
    expect(await a.v2('system')).toEqual([
      '1',
      null,
      topic,
      'system',
      {
        extension: 'system',
        status: 'error',
        message: 'Track message size exceeded',
        channel: 'pres5',
      },
    ]);
    expect(await a.v2('phx_close')).toEqual(['1', '1', topic, 'phx_close', {}]);
    a.close();
  });
});

describe('presence client limit (§5.1)', () => {
  it('closes a channel that sends more presence messages than the window allows, and recovers with the window', async () => {
    const s = await serve({
      config: { max_client_presence_events_per_window: 2, client_presence_window_ms: 400 },
    });
    try {
      const c = await RawClient.open(s.port, { vsn: '2.0.0' });
      const topic = 'realtime:limit';
      c.send(['1', '1', topic, 'phx_join', { config: { presence: { key: 'k' } } }]);
      await c.v2('phx_reply', '1');
      c.send([
        '1',
        '2',
        topic,
        'presence',
        { type: 'presence', event: 'track', payload: { n: 1 } },
      ]);
      c.send([
        '1',
        '3',
        topic,
        'presence',
        { type: 'presence', event: 'track', payload: { n: 2 } },
      ]);
      expect((await c.v2('phx_reply', '3'))[4]).toEqual({ status: 'ok', response: {} });
      c.send([
        '1',
        '4',
        topic,
        'presence',
        { type: 'presence', event: 'track', payload: { n: 3 } },
      ]);
      expect((await c.v2('system'))[4]).toEqual({
        extension: 'system',
        status: 'error',
        message: 'Client presence rate limit exceeded',
        channel: 'limit',
      });
      await c.v2('phx_close');
      await new Promise((r) => setTimeout(r, 450));
      c.send(['5', '5', topic, 'phx_join', { config: { presence: { key: 'k' } } }]);
      await c.v2('phx_reply', '5');
      c.send([
        '5',
        '6',
        topic,
        'presence',
        { type: 'presence', event: 'track', payload: { n: 4 } },
      ]);
      expect((await c.v2('phx_reply', '6'))[4]).toEqual({ status: 'ok', response: {} });
      c.close();
    } finally {
      await s.close();
    }
  });
});

describe('realtime-js presence', () => {
  it('syncs the presence of several clients', async () => {
    const apikey = await token();
    const clients: RealtimeClient[] = [];
    const channels: RealtimeChannel[] = [];
    try {
      for (const name of ['ann', 'ben', 'cat']) {
        const rc = new RealtimeClient(`ws://127.0.0.1:${srv.port}/socket`, {
          params: { apikey },
          transport: WebSocket as never,
          heartbeatIntervalMs: 60_000,
        });
        clients.push(rc);
        const ch = rc.channel('rjs-presence', {
          config: { presence: { key: name, enabled: true } },
        });
        ch.on('presence', { event: 'sync' }, () => undefined);
        channels.push(ch);
        await new Promise<void>((resolve, reject) =>
          ch.subscribe((status) => {
            if (status === 'SUBSCRIBED') resolve();
            else if (status !== 'CLOSED') reject(new Error(status));
          }),
        );
        await ch.track({ name });
      }
      // Each sees everyone, itself included: its own diff comes back to it, as on Supabase.
      await until(
        () => channels.every((ch) => ['ann', 'ben', 'cat'].every((k) => k in ch.presenceState())),
        5000,
        'presence sync',
      );
      expect(Object.keys(channels[0].presenceState()).sort()).toEqual(['ann', 'ben', 'cat']);
      await channels[0].untrack();
      await until(() => !('ann' in channels[1].presenceState()), 5000, 'untrack');
    } finally {
      for (const c of clients) void c.disconnect();
    }
  });
});
