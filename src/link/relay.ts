/**
 * A TCP relay that puts an emulated link between the generator and the target: it listens on a
 * local address, and for each connection accepted dials the target and forwards bytes both ways,
 * each chunk held for delay ± jitter (DelaySchedule) in each direction, in order. It forwards
 * TCP, not WebSocket frames: the client's TLS and HTTP (its Host header, its certificate check)
 * are end to end, the relay only changes where the TCP connection goes. With delay 0 it is a
 * plain forwarder (the netem path uses it to reach the target from rtcap's namespace).
 *
 * Sockets run without Nagle's algorithm, so the relay adds no coalescing wait of its own; the
 * connection to the target starts at once (the client's first bytes wait for the emulated
 * handshake instead, see DelaySchedule).
 */
import net, { type Socket } from 'node:net';
import { DelayedPipe } from './delayed-pipe.js';
import { DelaySchedule } from './delay-schedule.js';

export interface RelayOptions {
  /** Address to listen on (port 0: any free port). */
  listenHost: string;
  target: { host: string; port: number };
  delayMs: number;
  jitterMs: number;
  /**
   * Source addresses the relay dials the target from, round-robin (the generator's own, which
   * spread its connections over loopback aliases for ports: the relay's side needs as many);
   * empty: the OS picks.
   */
  sourceAddresses: string[];
}

export interface Relay {
  host: string;
  port: number;
  /** Connections relayed now. */
  open(): number;
  /** The latest any chunk went out after it was due (ms): the relay's own lag. */
  lateMaxMs(): number;
  close(): Promise<void>;
}

export async function startRelay(o: RelayOptions): Promise<Relay> {
  const pairs = new Set<() => void>();
  let lateMaxMs = 0;
  let accepted = 0;
  const server = net.createServer({ allowHalfOpen: true, noDelay: true }, (client) => {
    const n = o.sourceAddresses.length;
    const from = n ? o.sourceAddresses[accepted++ % n] : undefined;
    const stop = relayOne(client, o, from, (late) => (lateMaxMs = Math.max(lateMaxMs, late)));
    pairs.add(stop);
    client.once('close', () => pairs.delete(stop));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: o.listenHost, port: 0, backlog: 4096 }, () => resolve());
  });
  const address = server.address() as net.AddressInfo;
  return {
    host: address.address,
    port: address.port,
    open: () => pairs.size,
    lateMaxMs: () => lateMaxMs,
    close: () =>
      new Promise<void>((resolve) => {
        for (const stop of [...pairs]) stop();
        server.close(() => resolve());
      }),
  };
}

/** Relays one accepted connection; returns what tears it down. */
function relayOne(
  client: Socket,
  o: RelayOptions,
  localAddress: string | undefined,
  onLate: (ms: number) => void,
): () => void {
  const acceptedMs = Date.now();
  const upstream = net.connect({
    host: o.target.host,
    port: o.target.port,
    allowHalfOpen: true,
    noDelay: true,
    ...(localAddress ? { localAddress } : {}),
  });
  client.setNoDelay(true);
  // The client could send at once; on a real link its handshake takes a round trip first.
  const up = new DelayedPipe(
    client,
    upstream,
    new DelaySchedule(o.delayMs, o.jitterMs, acceptedMs + 2 * o.delayMs),
  );
  const down = new DelayedPipe(upstream, client, new DelaySchedule(o.delayMs, o.jitterMs));
  let done = false;
  const stop = () => {
    if (done) return;
    done = true;
    onLate(Math.max(up.lateMaxMs, down.lateMaxMs));
    up.close();
    down.close();
    client.destroy();
    upstream.destroy();
  };
  // A reset or failure on either side ends both at once; an orderly end goes through the line.
  client.on('error', stop);
  upstream.on('error', stop);
  let closed = 0;
  const onClose = () => {
    if (++closed === 2) stop();
  };
  client.on('close', onClose);
  upstream.on('close', onClose);
  return stop;
}
