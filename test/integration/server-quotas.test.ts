/**
 * Tenant quotas (docs/PROTOCOL.md §8), one test each: below the limit nothing is refused, above it
 * the exact reason appears, after the window it recovers. RateCounter ticks are shortened to
 * 100 ms (12 buckets: a 1.2 s window) so a window passes in a test.
 */
import { describe, expect, it } from 'vitest';
import type { ServerConfigFile } from '../../src/builtin/config.js';
import type { RunningServer } from '../../src/server/server.js';
import { RawClient, refusedUpgrade, serve, token } from '../server/helpers.js';

const TICK_MS = 100;
const WINDOW_MS = TICK_MS * 12;

async function withServer(
  config: ServerConfigFile,
  body: (s: RunningServer) => Promise<void>,
  timings = {},
): Promise<void> {
  const s = await serve({ config, timings: { rateTickMs: TICK_MS, ...timings } });
  try {
    await body(s);
  } finally {
    await s.close();
  }
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
let seq = 0;
async function joined(
  port: number,
  topic: string,
  config: Record<string, unknown> = {},
): Promise<RawClient> {
  const c = await RawClient.open(port, { vsn: '2.0.0' });
  const ref = String(++seq);
  c.send([ref, ref, topic, 'phx_join', { config }]);
  const r = await c.v2('phx_reply', ref);
  expect(r[4]).toMatchObject({ status: 'ok' });
  return c;
}
const reason = (r: unknown[]) => (r[4] as { response: { reason?: string } }).response.reason;

describe('max_concurrent_users', () => {
  it('refuses the user past the limit at connect and at join, and admits again after one leaves', () =>
    withServer({ max_concurrent_users: 2 }, async (s) => {
      const a = await joined(s.port, 'realtime:u');
      const early = await RawClient.open(s.port, { vsn: '2.0.0' }); // connected, not yet a user
      const b = await joined(s.port, 'realtime:u');
      expect(await refusedUpgrade(s.port, `apikey=${await token()}`)).toEqual({
        status: 429,
        body: '{"error":"Too many connected users"}',
      });
      early.send(['1', '1', 'realtime:u', 'phx_join', {}]);
      expect(reason(await early.v2('phx_reply', '1'))).toBe(
        'ConnectionRateLimitReached: Too many connected users',
      );
      // A counted user may join more channels.
      a.send(['9', '9', 'realtime:other', 'phx_join', {}]);
      expect((await a.v2('phx_reply', '9'))[4]).toMatchObject({ status: 'ok' });
      b.close();
      await wait(100); // the server counts the user out when the socket closes
      const c = await joined(s.port, 'realtime:u');
      for (const x of [a, c, early]) x.close();
    }));
});

describe('max_joins_per_second', () => {
  it('trips on a burst, refuses joins with a disconnect and connects with 429, then recovers', () =>
    withServer({ max_joins_per_second: 20 }, async (s) => {
      // Below: one join per tick is 10/s.
      const steady: RawClient[] = [];
      for (let i = 0; i < 3; i++) {
        steady.push(await joined(s.port, `realtime:j${i}`));
        await wait(TICK_MS);
      }
      // Above: a burst of 30 joins in one bucket. The window's average stays at or above 20/s
      // until that bucket leaves it, 12 ticks later, however many ticks the window has seen: at
      // least 33 joins over 12 ticks of 100 ms, 27.5/s. (10 joins tripped it only while the
      // window held 6 ticks or fewer, and on a loaded machine it had recovered by the upgrade
      // below.)
      const c = await RawClient.open(s.port, { vsn: '2.0.0' });
      for (let i = 0; i < 30; i++) c.send([`b${i}`, `b${i}`, `realtime:burst${i}`, 'phx_join', {}]);
      await c.v2('phx_reply', 'b29');
      await wait(TICK_MS * 2);
      c.send(['x', 'x', 'realtime:after', 'phx_join', {}]);
      expect(reason(await c.v2('phx_reply', 'x'))).toBe(
        'ClientJoinRateLimitReached: Too many joins per second',
      );
      expect(await c.closed()).toBe(1000);
      expect(await refusedUpgrade(s.port, `apikey=${await token()}`)).toEqual({
        status: 429,
        body: '{"error":"Too many joins per second"}',
      });
      await wait(WINDOW_MS + TICK_MS * 2);
      (await joined(s.port, 'realtime:again')).close();
      for (const x of steady) x.close();
    }));
});

describe('max_events_per_second', () => {
  it('closes the receiving channels with "Too many messages per second" once tripped, and recovers', () =>
    withServer({ max_events_per_second: 30 }, async (s) => {
      const topic = 'realtime:ev';
      const sender = await joined(s.port, topic, { broadcast: { ack: true } });
      const recv = await joined(s.port, topic);
      // Below: 1 message (+1 inbound, +1 delivery) every 3 ticks ≈ 6.7/s.
      for (let i = 0; i < 3; i++) {
        sender.send([null, `s${i}`, topic, 'broadcast', { event: 'e', payload: { i } }]);
        await sender.v2('phx_reply', `s${i}`);
        await wait(TICK_MS * 3);
      }
      expect(
        recv.frames.filter((f) => Array.isArray(f.json) && f.json[3] === 'system'),
      ).toHaveLength(0);
      // Above: 30 messages in one bucket = 60 events; over the 12-bucket window that is 50/s.
      for (let i = 0; i < 30; i++)
        sender.send([null, `b${i}`, topic, 'broadcast', { event: 'e', payload: { i } }]);
      await sender.v2('phx_reply', 'b29');
      await wait(TICK_MS * 2);
      // Inbound sends are not rejected; the recipients are closed (§8.2).
      sender.send([null, 'z', topic, 'broadcast', { event: 'e', payload: {} }]);
      expect((await sender.v2('phx_reply', 'z'))[4]).toEqual({ status: 'ok', response: {} });
      expect((await recv.v2('system'))[4]).toEqual({
        extension: 'system',
        status: 'error',
        message: 'Too many messages per second',
        channel: 'ev',
      });
      await recv.v2('phx_close');
      // REST is refused while tripped, by the plug (batch) and the controller (single) (§4.3–§4.4).
      const rest = (path: string) =>
        token().then((t) =>
          fetch(`http://127.0.0.1:${s.port}${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${t}` },
            body: JSON.stringify({ messages: [{ topic: 'ev', event: 'e', payload: {} }] }),
          }),
        );
      const batch = await rest('/api/broadcast');
      expect([batch.status, await batch.json(), batch.headers.get('x-rate-limit')]).toEqual([
        429,
        { message: 'Too many requests' },
        '30',
      ]);
      const single = await rest('/api/broadcast/ev/events/e');
      expect([single.status, await single.json()]).toEqual([
        429,
        { message: 'You have exceeded your rate limit' },
      ]);
      await wait(WINDOW_MS + TICK_MS * 2);
      const again = await joined(s.port, topic);
      sender.send([null, 'ok', topic, 'broadcast', { event: 'e', payload: {} }]);
      await again.v2('broadcast');
      expect(again.frames.some((f) => Array.isArray(f.json) && f.json[3] === 'system')).toBe(false);
      for (const x of [sender, recv, again]) x.close();
    }));
});

describe('max_presence_events_per_second', () => {
  it('closes a tracking channel with "Too many presence messages per second" and recovers', () =>
    withServer({ max_presence_events_per_second: 5 }, async (s) => {
      const topic = 'realtime:pe';
      // 12 members: each track fans out 12 diffs (the tracker's own included), all counted (§5.2).
      const members: RawClient[] = [];
      for (let i = 0; i < 12; i++)
        members.push(await joined(s.port, topic, { presence: { key: `m${i}` } }));
      await wait(WINDOW_MS + TICK_MS); // a full window of empty buckets
      const m0 = members[0];
      m0.send([
        null,
        't0',
        topic,
        'presence',
        { type: 'presence', event: 'track', payload: { n: 0 } },
      ]);
      expect((await m0.v2('phx_reply', 't0'))[4]).toEqual({ status: 'ok', response: {} });
      await wait(TICK_MS * 2);
      // track + presence_state + 12 diffs = 14 events over 12 buckets of 0.1 s ≈ 11.7/s > 5.
      const m1 = members[1];
      m1.send([
        null,
        't1',
        topic,
        'presence',
        { type: 'presence', event: 'track', payload: { n: 1 } },
      ]);
      expect((await m1.v2('system'))[4]).toMatchObject({
        status: 'error',
        message: 'Too many presence messages per second',
      });
      await m1.v2('phx_close');
      await wait(WINDOW_MS + TICK_MS * 2);
      const m2 = members[2];
      m2.send([
        null,
        't2',
        topic,
        'presence',
        { type: 'presence', event: 'track', payload: { n: 2 } },
      ]);
      expect((await m2.v2('phx_reply', 't2'))[4]).toEqual({ status: 'ok', response: {} });
      for (const x of members) x.close();
    }));
});

describe('max_channels_per_client', () => {
  it('refuses a join past the limit on one socket and admits it after a leave', () =>
    withServer({ max_channels_per_client: 2 }, async (s) => {
      const c = await RawClient.open(s.port, { vsn: '2.0.0' });
      c.send(['1', '1', 'realtime:c1', 'phx_join', {}]);
      c.send(['2', '2', 'realtime:c2', 'phx_join', {}]);
      c.send(['3', '3', 'realtime:c3', 'phx_join', {}]);
      expect((await c.v2('phx_reply', '2'))[4]).toMatchObject({ status: 'ok' });
      expect(reason(await c.v2('phx_reply', '3'))).toBe(
        'ChannelRateLimitReached: Too many channels',
      );
      // Other sockets are not affected.
      (await joined(s.port, 'realtime:c3')).close();
      c.send(['1', '4', 'realtime:c1', 'phx_leave', {}]);
      await c.v2('phx_close');
      c.send(['5', '5', 'realtime:c3', 'phx_join', {}]);
      expect((await c.v2('phx_reply', '5'))[4]).toMatchObject({ status: 'ok' });
      c.close();
    }));
});

describe('max_payload_size_in_kb', () => {
  it('accepts payloads up to kb*1000+500 bytes and refuses beyond, on the socket and over REST', () =>
    withServer({ max_payload_size_in_kb: 1 }, async (s) => {
      const topic = 'realtime:size';
      const c = await joined(s.port, topic, { broadcast: { ack: true } });
      // The whole broadcast payload counts: {"event":"e","payload":{"pad":"..."}} is 34 bytes
      // around the string.
      c.send([null, 'a', topic, 'broadcast', { event: 'e', payload: { pad: 'x'.repeat(1466) } }]);
      expect((await c.v2('phx_reply', 'a'))[4]).toEqual({ status: 'ok', response: {} });
      c.send([null, 'b', topic, 'broadcast', { event: 'e', payload: { pad: 'x'.repeat(1467) } }]);
      expect((await c.v2('phx_reply', 'b'))[4]).toEqual({
        status: 'error',
        response: 'payload_size_exceeded',
      });
      const res = await fetch(`http://127.0.0.1:${s.port}/api/broadcast`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${await token()}` },
        body: JSON.stringify({
          messages: [{ topic: 'size', event: 'e', payload: { pad: 'x'.repeat(3000) } }],
        }),
      });
      expect(res.status).toBe(422);
      expect(await res.json()).toEqual({
        errors: { messages: [{ payload: ['Payload size exceeds tenant limit'] }] },
      });
      c.close();
    }));
});

describe('error backoff (§1.5, §3.2)', () => {
  it('delays refused connects and error joins by the configured backoff', () =>
    withServer(
      {},
      async (s) => {
        const t0 = Date.now();
        expect((await refusedUpgrade(s.port, '')).status).toBe(401);
        expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
        const c = await RawClient.open(s.port, { vsn: '2.0.0' });
        const t1 = Date.now();
        c.send(['1', '1', 'realtime:', 'phx_join', {}]);
        await c.v2('phx_reply', '1');
        expect(Date.now() - t1).toBeGreaterThanOrEqual(390);
        c.close();
      },
      { connectErrorBackoffMs: 300, channelErrorBackoffMs: 400 },
    ));
});
