/**
 * Heartbeats of rtcap's client against the built-in server on 127.0.0.1: each heartbeat goes
 * out as one pre-built frame in one socket write (ws would write a header and a payload), the
 * server answers every one so a connection held over several intervals stays up, and a server
 * whose answers stop arriving (a relay in between drops its bytes) is caught on the next beat,
 * closing with 1000 "heartbeat timeout" as before. Timers are not involved: the test calls
 * heartbeat() itself, as the worker's scheduler does.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { Connection, type ConnectionHooks } from '../../src/client/connection.js';
import type { AwaitedReplies } from '../../src/client/awaited-replies.js';
import type { ClassifiedError } from '../../src/client/classify.js';
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
});
