/**
 * Interop: the official `phoenix` client and `@supabase/realtime-js` against `rtcap serve`
 * on real sockets: join, send and receive broadcasts on v1 and v2,
 * including realtime-js's binary kind-3 broadcast.
 */
import { RealtimeClient, type RealtimeChannel } from '@supabase/realtime-js';
// @ts-expect-error -- the phoenix package ships no type declarations; the shapes used are below.
import { Socket as PhoenixSocket } from 'phoenix';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { RunningServer } from '../../src/server/server.js';
import { RawClient, serve, token, until } from '../server/helpers.js';

interface Push {
  receive(status: string, cb: (r: unknown) => void): Push;
}
interface Channel {
  topic: string;
  join(): Push;
  on(event: string, cb: (payload: unknown) => void): number;
  push(event: string, payload: object): Push;
}
interface Socket {
  channels: Channel[];
  connect(): void;
  disconnect(): void;
  channel(topic: string, params: object): Channel;
}
const Socket = PhoenixSocket as new (endPoint: string, opts: object) => Socket;

let srv: RunningServer;
let apikey: string;
const closers: (() => void)[] = [];

beforeAll(async () => {
  srv = await serve();
  apikey = await token();
});
afterAll(async () => {
  for (const c of closers) c();
  await srv.close();
});

function phoenixSocket(vsn: '1.0.0' | '2.0.0'): Socket {
  const opts: Record<string, unknown> = {
    transport: WebSocket,
    params: { apikey },
    vsn,
    heartbeatIntervalMs: 60_000,
  };
  if (vsn === '1.0.0') {
    // phoenix.js's default serializer speaks v2 arrays; v1 is plain JSON objects (§2.1).
    opts.encode = (msg: unknown, cb: (s: string) => void) => cb(JSON.stringify(msg));
    opts.decode = (raw: string, cb: (m: unknown) => void) => cb(JSON.parse(raw));
  }
  const s = new Socket(`ws://127.0.0.1:${srv.port}/socket`, opts);
  s.connect();
  closers.push(() => s.disconnect());
  return s;
}

function joinPhoenix(
  s: Socket,
  topic: string,
  payload: object = {},
): Promise<{ ch: Channel; reply: unknown }> {
  const ch = s.channel(topic, payload);
  return new Promise((resolve, reject) => {
    ch.join()
      .receive('ok', (reply: unknown) => resolve({ ch, reply }))
      .receive('error', (e: unknown) => reject(new Error(`join error ${JSON.stringify(e)}`)))
      .receive('timeout', () => reject(new Error('join timeout')));
  });
}

function realtime(vsn: '1.0.0' | '2.0.0'): RealtimeClient {
  const c = new RealtimeClient(`ws://127.0.0.1:${srv.port}/socket`, {
    params: { apikey },
    transport: WebSocket as never,
    vsn,
    heartbeatIntervalMs: 60_000,
  });
  closers.push(() => void c.disconnect());
  return c;
}

function subscribed(ch: RealtimeChannel): Promise<void> {
  return new Promise((resolve, reject) => {
    ch.subscribe((status, err) => {
      if (status === 'SUBSCRIBED') resolve();
      else if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT')
        reject(err ?? new Error(status));
    });
  });
}

describe('phoenix client', () => {
  for (const vsn of ['2.0.0', '1.0.0'] as const) {
    it(`joins and exchanges broadcasts on vsn ${vsn}`, async () => {
      const a = phoenixSocket(vsn);
      const b = phoenixSocket(vsn);
      const topic = `realtime:phx-${vsn}`;
      const { reply } = await joinPhoenix(a, topic, { config: { broadcast: { self: false } } });
      expect(reply).toEqual({ postgres_changes: [] });
      const { ch: chB } = await joinPhoenix(b, topic);
      const got: unknown[] = [];
      chB.on('broadcast', (p: unknown) => got.push(p));
      const chA = a.channels.find((c) => c.topic === topic)!;
      chA.push('broadcast', { type: 'broadcast', event: 'hello', payload: { n: 1 } });
      await until(() => got.length === 1);
      expect(got[0]).toEqual({ type: 'broadcast', event: 'hello', payload: { n: 1 } });
    });
  }

  it('gets an error reply for an unmatched topic', async () => {
    const s = phoenixSocket('2.0.0');
    await expect(joinPhoenix(s, 'room:nope')).rejects.toThrow('unmatched topic');
  });
});

describe('@supabase/realtime-js', () => {
  it('sends a binary kind-3 broadcast that v2 (kind 4) and v1 (JSON) clients both receive', async () => {
    const sender = realtime('2.0.0');
    const v2 = realtime('2.0.0');
    const v1 = realtime('1.0.0');
    const topic = 'rjs-room';
    const chS = sender.channel(topic, { config: { broadcast: { ack: true } } });
    const ch2 = v2.channel(topic);
    const ch1 = v1.channel(topic);
    const got2: unknown[] = [];
    const got1: unknown[] = [];
    ch2.on('broadcast', { event: 'cursor' }, (m) => got2.push(m));
    ch1.on('broadcast', { event: 'cursor' }, (m) => got1.push(m));
    // A raw v2 member sees the wire form: kind 4 only arises from a kind-3 push (§2.3).
    const raw = await RawClient.open(srv.port, { vsn: '2.0.0', apikey });
    closers.push(() => raw.close());
    raw.send(['1', '1', `realtime:${topic}`, 'phx_join', { config: {} }]);
    await raw.v2('phx_reply', '1');
    await Promise.all([subscribed(chS), subscribed(ch2), subscribed(ch1)]);
    const res = await chS.send({ type: 'broadcast', event: 'cursor', payload: { x: 1, y: 2 } });
    expect(res).toBe('ok');
    await until(() => got2.length === 1 && got1.length === 1);
    expect(got2[0]).toMatchObject({ type: 'broadcast', event: 'cursor', payload: { x: 1, y: 2 } });
    expect(got1[0]).toMatchObject({ type: 'broadcast', event: 'cursor', payload: { x: 1, y: 2 } });
    const bin = await raw.next((f) => f.bin !== null);
    expect(bin.bin![0]).toBe(4);
  });

  it('receives its own message with self: true', async () => {
    const c = realtime('2.0.0');
    const ch = c.channel('rjs-self', { config: { broadcast: { self: true } } });
    const got: unknown[] = [];
    ch.on('broadcast', { event: 'echo' }, (m) => got.push(m));
    await subscribed(ch);
    await ch.send({ type: 'broadcast', event: 'echo', payload: { n: 7 } });
    await until(() => got.length === 1);
    expect(got[0]).toMatchObject({ event: 'echo', payload: { n: 7 } });
  });

  it('delivers httpSend (REST single broadcast) to subscribers', async () => {
    const sender = realtime('2.0.0');
    const recv = realtime('2.0.0');
    const ch = recv.channel('rjs-rest');
    const got: unknown[] = [];
    ch.on('broadcast', { event: 'rest' }, (m) => got.push(m));
    await subscribed(ch);
    await sender.setAuth(apikey);
    const res = await sender.channel('rjs-rest').httpSend('rest', { via: 'http' });
    expect(res).toEqual({ success: true });
    await until(() => got.length === 1);
    expect(got[0]).toMatchObject({ event: 'rest', payload: { via: 'http' } });
  });
});
