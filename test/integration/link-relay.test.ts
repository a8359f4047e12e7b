/**
 * The emulated link's relay over real sockets on 127.0.0.1: each chunk held for the delay in each
 * direction, the emulated handshake's round trip before the client's first bytes, order kept
 * under jitter, an orderly end carried through, backpressure carried to the sender, and the
 * source address given.
 */
import net, { type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startRelay, type Relay, type RelayOptions } from '../../src/link/relay.js';

let closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of closers.reverse()) await c();
  closers = [];
});

/** A TCP server on 127.0.0.1:0 handing each accepted socket to `onSocket`. */
async function target(onSocket: (s: Socket) => void): Promise<number> {
  const sockets = new Set<Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    onSocket(s);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  closers.push(
    () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  );
  return (server.address() as net.AddressInfo).port;
}

async function relayTo(port: number, o: Partial<RelayOptions> = {}): Promise<Relay> {
  const relay = await startRelay({
    listenHost: '127.0.0.1',
    target: { host: '127.0.0.1', port },
    delayMs: 0,
    jitterMs: 0,
    sourceAddresses: [],
    ...o,
  });
  closers.push(() => relay.close());
  return relay;
}

async function dial(relay: Relay): Promise<Socket> {
  const c = net.connect({ host: relay.host, port: relay.port, noDelay: true });
  closers.push(() => void c.destroy());
  await new Promise<void>((r) => c.once('connect', () => r()));
  return c;
}

/** Resolves with the time of the next data event on `s`. */
const nextData = (s: Socket) =>
  new Promise<number>((r) => s.once('data', () => r(performance.now())));

describe('link relay', () => {
  it('holds each chunk for the delay each way, the first one a handshake round trip more', async () => {
    const port = await target((s) => s.on('data', (d) => s.write(d)));
    const relay = await relayTo(port, { delayMs: 40 });
    // First, counted from the dial: 2 × 40 (the emulated handshake) + 40 up + 40 down = 160 ms;
    // then 80 ms a round trip.
    const dialedAt = performance.now();
    const c = await dial(relay);
    c.write('a');
    const first = (await nextData(c)) - dialedAt;
    const rtts: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      c.write('b');
      rtts.push((await nextData(c)) - t);
    }
    // Timers never fire early (1 ms of rounding); the upper bound leaves a loaded machine room.
    expect(first).toBeGreaterThanOrEqual(159);
    expect(first).toBeLessThan(160 + 60);
    for (const rtt of rtts) {
      expect(rtt).toBeGreaterThanOrEqual(79);
      expect(rtt).toBeLessThan(80 + 60);
    }
    expect(relay.open()).toBe(1);
  });

  it('keeps the stream in order under jitter and carries the end through', async () => {
    let got = '';
    let endedAt = 0;
    let onEnd!: () => void;
    const ended = new Promise<void>((r) => (onEnd = r));
    const port = await target((s) => {
      s.setEncoding('utf8');
      s.on('data', (d: string) => (got += d));
      s.on('end', () => {
        endedAt = performance.now();
        onEnd();
      });
    });
    const relay = await relayTo(port, { delayMs: 20, jitterMs: 15 });
    const c = await dial(relay);
    let sent = '';
    // 300 numbered chunks written a little apart, so jitter would reorder them if it could.
    for (let i = 0; i < 300; i++) {
      const chunk = `${i},`;
      sent += chunk;
      c.write(chunk);
      if (i % 10 === 0) await new Promise((r) => setTimeout(r, 1));
    }
    const endSentAt = performance.now();
    c.end();
    await ended;
    expect(got).toBe(sent);
    // The end (FIN) waited its turn behind the data: at least the delay less the jitter.
    expect(endedAt - endSentAt).toBeGreaterThanOrEqual(20 - 15 - 1);
  });

  it('stops reading the sender when the receiver does not read (a slow reader fills buffers)', async () => {
    const total = 64 * 1024 * 1024;
    let server: Socket | null = null;
    const port = await target((s) => {
      server = s;
      s.write(Buffer.alloc(total, 1));
    });
    const relay = await relayTo(port, { delayMs: 5 });
    const c = await dial(relay);
    c.pause(); // a client that never reads
    c.write('x'); // so the target is dialled and accepts
    await new Promise((r) => setTimeout(r, 1500));
    expect(server).not.toBeNull();
    // Kernel buffers and the relay's own limit (4 MiB a direction) hold some tens of MB at most;
    // without backpressure the relay would have read all 64 MB and the sender's queue be empty.
    expect(server!.writableLength).toBeGreaterThan(16 * 1024 * 1024);
  });

  it('dials the target from the source addresses given, round-robin', async () => {
    const seen: string[] = [];
    const port = await target((s) => seen.push(s.remoteAddress ?? ''));
    const relay = await relayTo(port, { sourceAddresses: ['127.0.0.2', '127.0.0.3'] });
    for (let i = 0; i < 3; i++) (await dial(relay)).write('x');
    const until = Date.now() + 5000;
    while (seen.length < 3 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    expect(seen).toEqual(['127.0.0.2', '127.0.0.3', '127.0.0.2']);
  });
});
