/**
 * Heartbeats of rtcap's client against the built-in server on 127.0.0.1: each heartbeat goes
 * out as one pre-built frame in one socket write (ws would write a header and a payload), the
 * server answers every one so a connection held over several intervals stays up, and a server
 * whose answers stop arriving (a relay in between drops its bytes) is caught on the next beat,
 * closing with 1000 "heartbeat timeout" as before. Timers are not involved: the test calls
 * heartbeat() itself, as the worker's scheduler does.
 */
import { createHash } from 'node:crypto';
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { Connection, type ConnectionHooks } from '../../src/client/connection.js';
import type { AwaitedReplies } from '../../src/client/awaited-replies.js';
import type { ClassifiedError } from '../../src/client/classify.js';
import { nowMs } from '../../src/measure/clock.js';
import { VSN_1, VSN_2, type Vsn } from '../../src/protocol/constants.js';
import type { RunningServer } from '../../src/server/server.js';
import { serve, token, until } from '../server/helpers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanups.splice(0).reverse()) await f();
});

interface Seen {
  errors: { phase: string; error: ClassifiedError }[];
  closed: boolean[];
  frames: number;
}

function recorder(): { hooks: ConnectionHooks; seen: Seen } {
  const seen: Seen = { errors: [], closed: [], frames: 0 };
  const hooks: ConnectionHooks = {
    onStamp: () => undefined,
    onOpen: () => undefined,
    onJoined: () => undefined,
    onError: (_c, error, phase) => void seen.errors.push({ phase, error }),
    onClosed: (_c, byUs) => void seen.closed.push(byUs),
    onAck: () => undefined,
    onFrame: () => void seen.frames++,
  };
  return { hooks, seen };
}

async function builtIn(): Promise<RunningServer> {
  const server = await serve();
  cleanups.push(() => server.close());
  return server;
}

/** A TCP relay to `port` whose server → client direction can be cut (`mute`). */
async function relay(port: number): Promise<{ port: number; mute(): void }> {
  let muted = false;
  const sockets: Socket[] = [];
  const server: Server = createServer((down) => {
    const up = connect(port, '127.0.0.1');
    sockets.push(down, up);
    down.on('data', (d) => up.write(d));
    up.on('data', (d) => muted || down.write(d));
    for (const [a, b] of [
      [down, up],
      [up, down],
    ])
      a.on('close', () => b.destroy()).on('error', () => b.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
  });
  return { port: (server.address() as AddressInfo).port, mute: () => (muted = true) };
}

async function open(
  port: number,
  vsn: Vsn,
  via?: { host: string; port: number },
): Promise<{ c: Connection; seen: Seen; writes: Buffer[] }> {
  const { hooks, seen } = recorder();
  const c = new Connection(0, vsn, hooks);
  cleanups.push(() => c.terminate());
  const q = new URLSearchParams({ vsn, apikey: await token() });
  c.connect({
    url: `ws://127.0.0.1:${port}/socket/websocket?${q}`,
    headers: {},
    handshakeTimeoutMs: 2000,
    via,
  });
  await until(() => c.state === 'open', 3000, 'open');
  // Every chunk written to the socket from here on.
  const socket = (c.ws as unknown as { _socket: Duplex })._socket;
  const writes: Buffer[] = [];
  const write = socket.write.bind(socket) as (chunk: Buffer, ...rest: unknown[]) => boolean;
  socket.write = ((chunk: Buffer, ...rest: unknown[]) => {
    writes.push(Buffer.from(chunk));
    return write(chunk, ...rest);
  }) as typeof socket.write;
  return { c, seen, writes };
}

const pending = (c: Connection) =>
  (c as unknown as { replies: AwaitedReplies }).replies.heartbeatRef !== null;

describe('client heartbeats against the built-in server', () => {
  it.each<Vsn>([VSN_1, VSN_2])(
    'vsn %s: held over several intervals, one write per heartbeat',
    async (vsn) => {
      const server = await builtIn();
      const { c, seen, writes } = await open(server.port, vsn);
      const BEATS = 6;
      for (let i = 0; i < BEATS; i++) {
        c.heartbeat();
        await until(() => !pending(c), 3000, `reply to heartbeat ${i + 1}`);
        await new Promise((r) => setTimeout(r, 30));
      }
      expect(seen.errors).toEqual([]);
      expect(seen.closed).toEqual([]);
      expect(c.state).toBe('open');
      expect(c.fastReader).toBe(true);
      // No reply was handed on as a frame the connection does not handle.
      expect(seen.frames).toBe(0);
      // Each heartbeat was one complete masked text frame of ≤ 125 bytes, written once.
      expect(writes).toHaveLength(BEATS);
      for (const w of writes) {
        expect(w[0]).toBe(0x81);
        expect(w[1] & 0x80).toBe(0x80);
        expect(w.length).toBe(6 + (w[1] & 0x7f));
      }
    },
  );

  it.each<Vsn>([VSN_1, VSN_2])(
    'vsn %s: a server whose answers stop is caught on the next beat',
    async (vsn) => {
      const server = await builtIn();
      const link = await relay(server.port);
      const { c, seen } = await open(server.port, vsn, { host: '127.0.0.1', port: link.port });
      for (let i = 0; i < 3; i++) {
        c.heartbeat();
        await until(() => !pending(c), 3000, `reply to heartbeat ${i + 1}`);
      }
      expect(seen.errors).toEqual([]);
      link.mute();
      c.heartbeat();
      await new Promise((r) => setTimeout(r, 200));
      expect(pending(c)).toBe(true);
      expect(seen.errors).toEqual([]);
      c.heartbeat();
      expect(seen.errors).toEqual([
        {
          phase: 'heartbeat',
          error: { class: 'server', reason: 'heartbeat timeout (no reply within the interval)' },
        },
      ]);
      // The server's closing handshake is dropped too: the socket goes when the server ends
      // the TCP connection, or when the client gives up waiting (2 s).
      await until(() => seen.closed.length === 1, 4000, 'closed');
      expect(seen.closed).toEqual([true]);
      expect(c.state).toBe('closed');
    },
  );

  it('knows its gap between heartbeats: the one still open, and the one its last heartbeat ended', async () => {
    const server = await builtIn();
    const { c } = await open(server.port, VSN_2);
    const opened = nowMs();
    await new Promise((r) => setTimeout(r, 300));
    // Open since the socket opened.
    expect(c.heartbeatGapMs(nowMs())).toBeGreaterThanOrEqual(300);
    c.heartbeat();
    const first = nowMs();
    // Ended by the heartbeat, and still the longest: a close read right after it was in that gap.
    expect(c.heartbeatGapMs(first)).toBeGreaterThanOrEqual(300);
    await until(() => !pending(c), 3000, 'reply to heartbeat 1');
    await new Promise((r) => setTimeout(r, 20));
    c.heartbeat();
    const second = nowMs();
    expect(c.heartbeatGapMs(second)).toBeLessThan(first - opened);
    expect(c.heartbeatGapMs(second)).toBeGreaterThanOrEqual(20);
  });

  it("a heartbeat due while the server's close is under way leaves the close to say why", async () => {
    const server = await closingServer();
    const { hooks, seen } = recorder();
    const c = new Connection(0, VSN_2, hooks);
    cleanups.push(() => c.terminate());
    c.connect({
      url: `ws://127.0.0.1:${server.port}/socket/websocket`,
      headers: {},
      handshakeTimeoutMs: 2000,
    });
    await until(() => c.state === 'open', 3000, 'open');
    // Unanswered, then the server's close frame (an idle timeout) without the end of its socket.
    c.heartbeat();
    server.sendClose(1000, 'idle');
    await until(() => c.ws?.readyState === WebSocket.CLOSING, 3000, 'closing');
    c.heartbeat();
    expect(seen.errors).toEqual([]);
    server.endSocket();
    await until(() => c.state === 'closed', 3000, 'closed');
    expect(seen.errors).toEqual([
      { phase: 'socket', error: { class: 'server', reason: 'closed by server: 1000 idle' } },
    ]);
    expect(seen.closed).toEqual([false]);
  });
});

/**
 * A WebSocket server written by hand: it completes the upgrade, answers nothing, and sends a
 * close frame or ends its socket when told, so a test holds the client between the two.
 */
async function closingServer(): Promise<{
  port: number;
  sendClose(code: number, reason: string): void;
  endSocket(): void;
}> {
  let sock: Socket | null = null;
  // Half-open allowed: the client's end of its socket after the closing handshake does not end
  // this one, so the client stays in that handshake until endSocket().
  const server: Server = createServer({ allowHalfOpen: true }, (s) => {
    sock = s;
    s.once('data', (head) => {
      const key = /sec-websocket-key: *(\S+)/i.exec(head.toString())?.[1] ?? '';
      const accept = createHash('sha1')
        .update(key + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11')
        .digest('base64');
      s.write(
        `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
      );
    });
    s.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(async () => {
    sock?.destroy();
    await new Promise((r) => server.close(r));
  });
  return {
    port: (server.address() as AddressInfo).port,
    sendClose: (code, reason) => {
      const body = Buffer.concat([Buffer.from([code >> 8, code & 0xff]), Buffer.from(reason)]);
      sock?.write(Buffer.concat([Buffer.from([0x88, body.length]), body]));
    },
    endSocket: () => sock?.end(),
  };
}
