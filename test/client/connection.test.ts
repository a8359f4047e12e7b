/**
 * Connection against a real `ws` server on 127.0.0.1 whose every answer the test scripts:
 * reply routing, heartbeats, join timeouts, channel errors, malformed frames and refused
 * upgrades. Timers are not involved: the test calls heartbeat() and expireJoins() itself, as
 * the worker's schedulers do.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { Connection, type ConnectionHooks } from '../../src/client/connection.js';
import { API_KEY_HINT, type ClassifiedError } from '../../src/client/classify.js';
import { decodeFrame, encodeFrame } from '../../src/protocol/frame.js';
import { encodeUserBroadcast } from '../../src/protocol/frame-encode.js';
import type { Frame } from '../../src/protocol/frame-types.js';
import { VSN_1, VSN_2, type Vsn } from '../../src/protocol/constants.js';
import type { Stamp } from '../../src/protocol/stamp.js';
import { nowMs } from '../../src/measure/clock.js';

// ------------------------------------------------------------------------ scripted server

interface Peer {
  ws: WebSocket;
  vsn: Vsn;
  /** Frames the client sent, decoded. */
  frames: Frame[];
  send(f: Frame): void;
  closed: Promise<{ code: number; reason: string }>;
}

interface Scripted {
  url(vsn: Vsn): string;
  port: number;
  peers: Peer[];
  close(): Promise<void>;
}

type Script = (peer: Peer, f: Frame) => void;

/** Replies ok to every join with `{postgres_changes: []}` (§3.2) and to every heartbeat (§2.4). */
const okJoinsAndHeartbeats: Script = (peer, f) => {
  if (f.event === 'phx_join')
    peer.send({
      joinRef: f.ref,
      ref: f.ref,
      topic: f.topic,
      event: 'phx_reply',
      payload: { status: 'ok', response: { postgres_changes: [] } },
    });
  if (f.event === 'heartbeat')
    peer.send({
      joinRef: null,
      ref: f.ref,
      topic: 'phoenix',
      event: 'phx_reply',
      payload: { status: 'ok', response: {} },
    });
};

const servers: Scripted[] = [];
const connections: Connection[] = [];

async function startServer(
  script: Script,
  refuse?: (socket: import('node:stream').Duplex) => void,
): Promise<Scripted> {
  const http: Server = createServer((_req, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  const peers: Peer[] = [];
  http.on('upgrade', (req, socket, head) => {
    if (refuse) return refuse(socket);
    const vsn = (new URL(req.url ?? '/', 'http://x').searchParams.get('vsn') ?? VSN_1) as Vsn;
    wss.handleUpgrade(req, socket, head, (ws) => {
      const peer: Peer = {
        ws,
        vsn,
        frames: [],
        send: (f) => ws.send(encodeFrame(f, vsn, 'server')),
        closed: new Promise((resolve) =>
          ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
        ),
      };
      peers.push(peer);
      ws.on('message', (data: Buffer, isBinary: boolean) => {
        const f = decodeFrame(data, isBinary, vsn, 'client');
        peer.frames.push(f);
        script(peer, f);
      });
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const port = (http.address() as AddressInfo).port;
  const s: Scripted = {
    port,
    peers,
    url: (vsn) => `ws://127.0.0.1:${port}/socket/websocket?vsn=${vsn}`,
    close: async () => {
      for (const p of peers) p.ws.terminate();
      wss.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
  servers.push(s);
  return s;
}

afterEach(async () => {
  for (const c of connections.splice(0)) c.terminate();
  for (const s of servers.splice(0)) await s.close();
});

// ------------------------------------------------------------------------ recording hooks

type Event =
  | { type: 'open' }
  | { type: 'joined'; topic: string; response: unknown }
  | { type: 'error'; error: ClassifiedError; phase: string }
  | { type: 'closed'; byUs: boolean }
  | { type: 'ack'; ok: boolean; reason: string | null }
  | { type: 'frame'; frame: Frame }
  | { type: 'stamp'; stamp: Stamp; bytes: number };

class Recorder implements ConnectionHooks {
  readonly events: Event[] = [];
  onStamp(_c: Connection, stamp: Stamp, _recvMs: number, bytes: number) {
    this.events.push({ type: 'stamp', stamp: { ...stamp }, bytes });
  }
  onOpen() {
    this.events.push({ type: 'open' });
  }
  onJoined(_c: Connection, topic: string, response: unknown, latencyMs: number) {
    expect(latencyMs).toBeGreaterThanOrEqual(0);
    this.events.push({ type: 'joined', topic, response });
  }
  onError(_c: Connection, error: ClassifiedError, phase: string) {
    this.events.push({ type: 'error', error, phase });
  }
  onClosed(_c: Connection, byUs: boolean) {
    this.events.push({ type: 'closed', byUs });
  }
  onAck(_c: Connection, ok: boolean, reason: string | null) {
    this.events.push({ type: 'ack', ok, reason });
  }
  onFrame(_c: Connection, frame: Frame) {
    this.events.push({ type: 'frame', frame });
  }
  of<T extends Event['type']>(type: T): Array<Extract<Event, { type: T }>> {
    return this.events.filter((e): e is Extract<Event, { type: T }> => e.type === type);
  }
}

/** Polls until `pred` holds; fails after `ms` (bounded, well under a second). */
async function until(pred: () => boolean, ms = 800): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function open(
  server: Scripted,
  vsn: Vsn = VSN_2,
): Promise<{ c: Connection; rec: Recorder; peer: Peer }> {
  const rec = new Recorder();
  const c = new Connection(0, vsn, rec);
  connections.push(c);
  c.connect({ url: server.url(vsn), headers: {}, handshakeTimeoutMs: 800 });
  await until(() => rec.of('open').length === 1 && server.peers.length === 1);
  return { c, rec, peer: server.peers[0] };
}

// ------------------------------------------------------------------------------- tests

describe('Connection: joins', () => {
  it.each<Vsn>([VSN_1, VSN_2])(
    'an ok reply (vsn %s) confirms the join with its response',
    async (vsn) => {
      const server = await startServer(okJoinsAndHeartbeats);
      const { c, rec, peer } = await open(server, vsn);
      c.join('realtime:room1', { config: {} });
      await until(() => rec.of('joined').length === 1);
      expect(rec.of('joined')[0]).toEqual({
        type: 'joined',
        topic: 'realtime:room1',
        response: { postgres_changes: [] },
      });
      expect(c.joins.get('realtime:room1')).toEqual({ joinRef: '1', joined: true });
      expect(peer.frames[0]).toEqual({
        joinRef: '1',
        ref: '1',
        topic: 'realtime:room1',
        event: 'phx_join',
        payload: { config: {} },
      });
      expect(c.hasPendingJoin).toBe(false);
      expect(rec.of('error')).toEqual([]);
    },
  );

  it('replies are routed by ref, whatever order they come in', async () => {
    const held: Frame[] = [];
    const server = await startServer((peer, f) => {
      if (f.event !== 'phx_join') return;
      held.push(f);
      if (held.length < 2) return;
      // Answer the second join first, the first with an error; then a reply nobody asked for.
      const [a, b] = held;
      peer.send({
        joinRef: b.ref,
        ref: b.ref,
        topic: b.topic,
        event: 'phx_reply',
        payload: { status: 'ok', response: { n: 2 } },
      });
      peer.send({
        joinRef: a.ref,
        ref: a.ref,
        topic: a.topic,
        event: 'phx_reply',
        payload: {
          status: 'error',
          response: { reason: 'ChannelRateLimitReached: Too many channels' },
        },
      });
      peer.send({
        joinRef: null,
        ref: '99',
        topic: a.topic,
        event: 'phx_reply',
        payload: { status: 'ok', response: {} },
      });
    });
    const { c, rec } = await open(server);
    c.join('realtime:a', {});
    c.join('realtime:b', {});
    await until(() => rec.of('joined').length === 1 && rec.of('error').length === 1);
    expect(rec.of('joined')[0]).toMatchObject({ topic: 'realtime:b', response: { n: 2 } });
    expect(rec.of('error')[0]).toEqual({
      type: 'error',
      phase: 'join',
      error: {
        class: 'server',
        reason: 'join refused: ChannelRateLimitReached: Too many channels',
      },
    });
    expect(c.joins.has('realtime:a')).toBe(false);
    expect(c.joins.get('realtime:b')?.joined).toBe(true);
  });

  it('a join with no reply times out through expireJoins, and only past the timeout', async () => {
    const server = await startServer(() => {});
    const { c, rec } = await open(server);
    c.join('realtime:room1', {});
    const sentAt = nowMs();
    expect(c.expireJoins(sentAt, 10_000)).toBe(0);
    expect(c.hasPendingJoin).toBe(true);
    expect(c.expireJoins(sentAt + 20_000, 10_000)).toBe(1);
    expect(rec.of('error')).toEqual([
      {
        type: 'error',
        phase: 'join',
        error: { class: 'server', reason: 'join timeout: no reply within 10000 ms' },
      },
    ]);
    expect(c.hasPendingJoin).toBe(false);
    expect(c.joins.has('realtime:room1')).toBe(false);
    expect(c.expireJoins(sentAt + 40_000, 10_000)).toBe(0);
  });

  it('a late reply to a join that timed out is ignored', async () => {
    let joinFrame: Frame | null = null;
    const server = await startServer((_p, f) => {
      if (f.event === 'phx_join') joinFrame = f;
    });
    const { c, rec, peer } = await open(server);
    c.join('realtime:room1', {});
    await until(() => joinFrame !== null);
    c.expireJoins(nowMs() + 20_000, 10_000);
    const f = joinFrame!;
    peer.send({
      joinRef: f.ref,
      ref: f.ref,
      topic: f.topic,
      event: 'phx_reply',
      payload: { status: 'ok', response: {} },
    });
    // A marker frame after the late reply: once it is seen, the reply has been handled.
    peer.send({ joinRef: null, ref: null, topic: 'phoenix', event: 'marker', payload: {} });
    await until(() => rec.of('frame').length === 1);
    expect(rec.of('joined')).toEqual([]);
  });
});

describe('Connection: heartbeats (§2.4)', () => {
  it('a reply clears the pending heartbeat, so the next beat is sent normally', async () => {
    const server = await startServer(okJoinsAndHeartbeats);
    const { c, rec, peer } = await open(server);
    for (let i = 0; i < 3; i++) {
      c.heartbeat();
      await until(() => peer.frames.length === i + 1);
      // Wait for the reply to be processed: the next beat must not see it pending.
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(peer.frames.map((f) => [f.topic, f.event, f.joinRef])).toEqual([
      ['phoenix', 'heartbeat', null],
      ['phoenix', 'heartbeat', null],
      ['phoenix', 'heartbeat', null],
    ]);
    expect(new Set(peer.frames.map((f) => f.ref)).size).toBe(3);
    expect(rec.of('error')).toEqual([]);
    expect(c.state).toBe('open');
    // Nothing awaited: an idle connection keeps no map of pending replies.
    expect((c as unknown as { replies: { pending: unknown } }).replies.pending).toBeNull();
  });

  it('a missing reply closes with 1000 "heartbeat timeout" on the next beat', async () => {
    const server = await startServer(() => {});
    const { c, rec, peer } = await open(server);
    c.heartbeat();
    await until(() => peer.frames.length === 1);
    c.heartbeat();
    expect(rec.of('error')).toEqual([
      {
        type: 'error',
        phase: 'heartbeat',
        error: { class: 'server', reason: 'heartbeat timeout (no reply within the interval)' },
      },
    ]);
    expect(await peer.closed).toEqual({ code: 1000, reason: 'heartbeat timeout' });
    await until(() => rec.of('closed').length === 1);
    expect(rec.of('closed')).toEqual([{ type: 'closed', byUs: true }]);
    expect(peer.frames).toHaveLength(1); // no second heartbeat was sent
  });
});

describe('Connection: channel errors with verbatim reasons', () => {
  async function joined(extra: Script) {
    const server = await startServer((peer, f) => {
      okJoinsAndHeartbeats(peer, f);
      extra(peer, f);
    });
    const o = await open(server);
    o.c.join('realtime:room1', {});
    await until(() => o.rec.of('joined').length === 1);
    return o;
  }

  it('phx_close from the server ends the membership', async () => {
    const { c, rec, peer } = await joined(() => {});
    peer.send({ joinRef: '1', ref: '1', topic: 'realtime:room1', event: 'phx_close', payload: {} });
    await until(() => rec.of('error').length === 1);
    expect(rec.of('error')[0]).toEqual({
      type: 'error',
      phase: 'channel',
      error: { class: 'server', reason: 'phx_close: channel closed by server' },
    });
    expect(c.joins.has('realtime:room1')).toBe(false);
  });

  it('phx_error carries its reason', async () => {
    const { rec, peer } = await joined(() => {});
    peer.send({
      joinRef: '1',
      ref: '1',
      topic: 'realtime:room1',
      event: 'phx_error',
      payload: { reason: 'channel_crash' },
    });
    await until(() => rec.of('error').length === 1);
    expect(rec.of('error')[0]).toEqual({
      type: 'error',
      phase: 'channel',
      error: { class: 'server', reason: 'phx_error: channel_crash' },
    });
  });

  it('a system error carries its message verbatim; a system ok is passed on', async () => {
    const { rec, peer } = await joined(() => {});
    const ok = {
      extension: 'postgres_changes',
      status: 'ok',
      message: 'Subscribed to PostgreSQL',
      channel: 'room1',
    };
    peer.send({ joinRef: '1', ref: null, topic: 'realtime:room1', event: 'system', payload: ok });
    peer.send({
      joinRef: '1',
      ref: null,
      topic: 'realtime:room1',
      event: 'system',
      payload: {
        extension: 'system',
        status: 'error',
        message: 'Too many messages per second',
        channel: 'room1',
      },
    });
    await until(() => rec.of('error').length === 1);
    expect(rec.of('error')[0]).toEqual({
      type: 'error',
      phase: 'channel',
      error: { class: 'server', reason: 'system error: Too many messages per second' },
    });
    expect(rec.of('frame').map((e) => e.frame.payload)).toEqual([ok]);
  });

  it('phx_close of a stale join (another join_ref) is ignored', async () => {
    const { c, rec, peer } = await joined(() => {});
    peer.send({
      joinRef: '77',
      ref: '77',
      topic: 'realtime:room1',
      event: 'phx_close',
      payload: {},
    });
    peer.send({ joinRef: null, ref: null, topic: 'realtime:room1', event: 'marker', payload: {} });
    await until(() => rec.of('frame').length === 1);
    expect(rec.of('error')).toEqual([]);
    expect(c.joins.get('realtime:room1')?.joined).toBe(true);
  });

  it('leaving: the ok reply and the phx_close that follows are not errors (§2.5)', async () => {
    const { c, rec, peer } = await joined((p, f) => {
      if (f.event !== 'phx_leave') return;
      p.send({
        joinRef: f.joinRef,
        ref: f.ref,
        topic: f.topic,
        event: 'phx_reply',
        payload: { status: 'ok', response: {} },
      });
      p.send({
        joinRef: f.joinRef,
        ref: f.joinRef,
        topic: f.topic,
        event: 'phx_close',
        payload: {},
      });
      p.send({ joinRef: null, ref: null, topic: f.topic, event: 'marker', payload: {} });
    });
    c.leave('realtime:room1');
    await until(() => rec.of('frame').length === 1);
    expect(peer.frames.at(-1)).toMatchObject({ joinRef: '1', event: 'phx_leave' });
    expect(rec.of('error')).toEqual([]);
    expect(c.joins.has('realtime:room1')).toBe(false);
  });
});

describe('Connection: pushes, acks and deliveries', () => {
  it('acks route to onAck: ok, and a bare-string error (§4.1)', async () => {
    let n = 0;
    const server = await startServer((peer, f) => {
      okJoinsAndHeartbeats(peer, f);
      if (f.event !== 'broadcast') return;
      const payload =
        n++ === 0
          ? { status: 'ok', response: {} }
          : { status: 'error', response: 'payload_size_exceeded' };
      peer.send({ joinRef: f.joinRef, ref: f.ref, topic: f.topic, event: 'phx_reply', payload });
    });
    const { c, rec } = await open(server);
    c.join('realtime:room1', {});
    await until(() => rec.of('joined').length === 1);
    expect(
      c.push('realtime:room1', 'broadcast', { type: 'broadcast', event: 'e', payload: {} }, true),
    ).toBe(true);
    expect(
      c.push('realtime:room1', 'broadcast', { type: 'broadcast', event: 'e', payload: {} }, true),
    ).toBe(true);
    await until(() => rec.of('ack').length === 2);
    expect(rec.of('ack')).toEqual([
      { type: 'ack', ok: true, reason: null },
      { type: 'ack', ok: false, reason: 'payload_size_exceeded' },
    ]);
  });

  it('a binary push is a kind-3 frame with the join_ref of the topic', async () => {
    const server = await startServer(okJoinsAndHeartbeats);
    const { c, rec, peer } = await open(server);
    c.join('realtime:room1', {});
    await until(() => rec.of('joined').length === 1);
    c.push('realtime:room1', 'broadcast', null, false, {
      userEvent: 'bench',
      inner: { id: 1, s: 0, t: 5 },
    });
    await until(() => peer.frames.length === 2);
    expect(peer.frames[1]).toEqual({
      joinRef: '1',
      ref: '2',
      topic: 'realtime:room1',
      event: 'broadcast',
      payload: { type: 'broadcast', event: 'bench', payload: { id: 1, s: 0, t: 5 } },
    });
  });

  it('stamped deliveries go to onStamp in every encoding; other frames to onFrame', async () => {
    const server = await startServer(okJoinsAndHeartbeats);
    const { rec, peer } = await open(server);
    const envelope = { type: 'broadcast', event: 'bench', payload: { id: 4, s: 2, t: 1000.5 } };
    peer.send({
      joinRef: null,
      ref: null,
      topic: 'realtime:room1',
      event: 'broadcast',
      payload: envelope,
    });
    const k4 = encodeUserBroadcast({
      topic: 'realtime:room1',
      userEvent: 'bench',
      metadata: { id: 'uuid-1' },
      payload: { id: 5, s: 2, t: 1001.5 },
    });
    peer.ws.send(k4);
    peer.send({
      joinRef: null,
      ref: null,
      topic: 'realtime:room1',
      event: 'presence_diff',
      payload: { joins: {}, leaves: {} },
    });
    await until(() => rec.of('stamp').length === 2 && rec.of('frame').length === 1);
    expect(rec.of('stamp').map((e) => e.stamp)).toEqual([
      { id: 4, stream: 2, sentAtMs: 1000.5 },
      { id: 5, stream: 2, sentAtMs: 1001.5 },
    ]);
    expect(rec.of('stamp')[1].bytes).toBe(k4.length);
    expect(rec.of('frame')[0].frame.event).toBe('presence_diff');
  });

  it('frames are read by the fast reader; a ping is answered; after a fragmented message ws reads on, losing nothing', async () => {
    const server = await startServer(okJoinsAndHeartbeats);
    const { c, rec, peer } = await open(server);
    expect(c.fastReader).toBe(true);
    const stamp = (id: number) => ({
      joinRef: null,
      ref: null,
      topic: 'realtime:room1',
      event: 'broadcast',
      payload: { type: 'broadcast', event: 'bench', payload: { id, s: 1, t: 1000 + id } },
    });
    const pong = new Promise<string>((resolve) =>
      peer.ws.once('pong', (d: Buffer) => resolve(d.toString())),
    );
    peer.send(stamp(1));
    peer.ws.ping('are-you-there');
    expect(await pong).toBe('are-you-there');
    // A message in two fragments: the fast reader hands the connection back to ws.
    const text = encodeFrame(stamp(2), VSN_2, 'server') as string;
    peer.ws.send(text.slice(0, 10), { fin: false });
    peer.ws.send(text.slice(10), { fin: true });
    peer.send(stamp(3));
    await until(() => rec.of('stamp').length === 3);
    expect(rec.of('stamp').map((e) => e.stamp.id)).toEqual([1, 2, 3]);
    expect(rec.of('error')).toEqual([]);
    peer.ws.close(1012, 'Service Restart');
    await until(() => rec.of('closed').length === 1);
    expect(rec.of('error')).toEqual([
      {
        type: 'error',
        phase: 'socket',
        error: { class: 'server', reason: 'closed by server: 1012 Service Restart' },
      },
    ]);
  });

  it('push and join on a connection that is not open report a failed send', async () => {
    const rec = new Recorder();
    const c = new Connection(0, VSN_2, rec);
    expect(c.push('realtime:room1', 'broadcast', {}, false)).toBe(false);
    expect(
      c.sendFrame({ joinRef: null, ref: '1', topic: 'phoenix', event: 'heartbeat', payload: {} }),
    ).toBe(false);
  });
});

describe('Connection: malformed frames and failed connects', () => {
  it('a malformed frame is a protocol-class error and the socket stays open', async () => {
    const server = await startServer(okJoinsAndHeartbeats);
    const { c, rec, peer } = await open(server);
    peer.ws.send('garbage{');
    peer.ws.send('[null,null,"t"]');
    peer.ws.send(Buffer.from([9, 1, 2]), { binary: true });
    await until(() => rec.of('error').length === 3);
    expect(rec.of('error')).toEqual([
      {
        type: 'error',
        phase: 'frame',
        error: {
          class: 'protocol',
          reason: 'malformed frame (not JSON): garbage{',
          frame: 'malformed',
        },
      },
      {
        type: 'error',
        phase: 'frame',
        error: {
          class: 'protocol',
          reason: 'malformed frame (v2 frame is not an array of 5): [null,null,"t"]',
          frame: 'malformed',
        },
      },
      {
        type: 'error',
        phase: 'frame',
        error: {
          class: 'protocol',
          reason: 'malformed frame (unknown binary frame kind 9): <3 binary bytes>',
          frame: 'malformed',
        },
      },
    ]);
    expect(c.state).toBe('open');
  });

  it.each([
    // A binary frame's header announcing MAX_PAYLOAD_BYTES + 1 bytes (a 64-bit length): ws refuses
    // it from the header, before any payload.
    [
      'a message over the limit is "frame too large (1009)"',
      Buffer.from([0x82, 127, 0, 0, 0, 0, 0x06, 0x40, 0x00, 0x01]),
      {
        class: 'protocol',
        reason:
          "frame too large (1009): a message over the client's limit of 104,857,600 bytes was refused and the connection closed",
        frame: 'oversized',
      },
    ],
    [
      'an invalid WebSocket frame (reserved opcode 3) is named so',
      Buffer.from([0x83, 0x00]),
      {
        class: 'protocol',
        reason:
          'invalid WebSocket frame, refused and the connection closed: Invalid WebSocket frame: invalid opcode 3',
        frame: 'malformed',
      },
    ],
  ])(
    '%s: one error, then the close with none of its own (never "closed by server" or 1006)',
    async (_what, bytes, error) => {
      const server = await startServer(okJoinsAndHeartbeats);
      const { c, rec, peer } = await open(server);
      expect(c.fastReader).toBe(true);
      // Written past the server's ws, as a server sending such a frame would.
      (peer.ws as unknown as { _socket: import('node:net').Socket })._socket.write(bytes);
      await until(() => rec.of('closed').length === 1, 3000);
      expect(rec.of('error')).toEqual([{ type: 'error', phase: 'frame', error }]);
      expect(rec.of('closed')).toEqual([{ type: 'closed', byUs: false }]);
      expect(c.state).toBe('closed');
    },
  );

  it('a refused upgrade is classified with its status and body', async () => {
    const body = '{"error":"API key is missing"}';
    const server = await startServer(
      () => {},
      (socket) =>
        socket.end(
          `HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        ),
    );
    const rec = new Recorder();
    const c = new Connection(0, VSN_2, rec);
    connections.push(c);
    c.connect({ url: server.url(VSN_2), headers: {}, handshakeTimeoutMs: 800 });
    await until(() => rec.of('closed').length === 1);
    expect(rec.events).toEqual([
      {
        type: 'error',
        phase: 'connect',
        error: {
          class: 'server',
          reason: `upgrade refused: HTTP 401 {"error":"API key is missing"} — ${API_KEY_HINT}`,
        },
      },
      { type: 'closed', byUs: false },
    ]);
    expect(c.state).toBe('closed');
  });

  it('a refused TCP connect is a network error naming the address', async () => {
    // A port that was just free: listen, note it, close.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const rec = new Recorder();
    const c = new Connection(0, VSN_2, rec);
    connections.push(c);
    c.connect({
      url: `ws://127.0.0.1:${port}/socket/websocket?vsn=2.0.0`,
      headers: {},
      handshakeTimeoutMs: 800,
    });
    await until(() => rec.of('closed').length === 1);
    expect(rec.of('error')).toEqual([
      {
        type: 'error',
        phase: 'connect',
        error: { class: 'network', reason: `connect ECONNREFUSED 127.0.0.1:${port}` },
      },
    ]);
  });

  it('a close by the server is reported with its code and reason', async () => {
    const server = await startServer(okJoinsAndHeartbeats);
    const { c, rec, peer } = await open(server);
    peer.ws.close(1012, 'Service Restart');
    await until(() => rec.of('closed').length === 1);
    expect(rec.of('error')).toEqual([
      {
        type: 'error',
        phase: 'socket',
        error: { class: 'server', reason: 'closed by server: 1012 Service Restart' },
      },
    ]);
    expect(rec.of('closed')).toEqual([{ type: 'closed', byUs: false }]);
    expect(c.state).toBe('closed');
  });

  it('a dropped TCP connection (1006) is the network', async () => {
    const server = await startServer(okJoinsAndHeartbeats);
    const { rec, peer } = await open(server);
    peer.ws.terminate();
    await until(() => rec.of('closed').length === 1);
    expect(rec.of('error')).toEqual([
      {
        type: 'error',
        phase: 'socket',
        error: {
          class: 'network',
          reason:
            'connection dropped without a close frame (1006): the server went away or the network failed',
        },
      },
    ]);
  });

  it('closing ourselves reports no error', async () => {
    const server = await startServer(okJoinsAndHeartbeats);
    const { c, rec, peer } = await open(server);
    c.close();
    expect((await peer.closed).code).toBe(1000);
    await until(() => rec.of('closed').length === 1);
    expect(rec.of('closed')).toEqual([{ type: 'closed', byUs: true }]);
    expect(rec.of('error')).toEqual([]);
  });
});
