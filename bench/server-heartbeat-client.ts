/**
 * The client process of bench/server-heartbeat.ts: `count` connections made with rtcap's own
 * client Connection (src/client/connection.ts, what the generator's processes use: ws with
 * rtcap's frame reader, vsn 2.0.0, the token as `apikey` and as the join's `access_token`,
 * the generator's join config), opened 50 at a time; once all have joined (or failed) it prints
 * {"joined":N,"failed":F}. From its join on, each connection heartbeats every `intervalMs`,
 * spread evenly over the interval: a tick every TICK_MS heartbeats one slot of connections, as
 * the generator's once-a-second scheduler does with its slots (generator/worker-timers.ts), only
 * finer. As in the generator, a heartbeat still unanswered when the next is due closes its
 * connection.
 *
 * Commands on stdin (bench/support/child-control.ts): `stat` adds heartbeats sent, still
 * unanswered, connections open and errors; `pause` / `resume` stop and restart heartbeats.
 *
 * ROOT (default: this checkout) is the source tree whose src/client/connection.ts is used, so the
 * client code before a change can run from a copy of main (bench/server-heartbeat.ts
 * --compare-client).
 *
 * Run by bench/server-heartbeat.ts: server-heartbeat-client.ts URL COUNT INTERVAL_MS TOKEN [ROOT]
 */
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Connection, ConnectionHooks } from '../src/client/connection.js';
import type { AwaitedReplies } from '../src/client/awaited-replies.js';
import { childControl, say } from './support/child-control.js';

type ConnectionModule = typeof import('../src/client/connection.js');

const TICK_MS = 50;
const TOPIC = 'realtime:heartbeat-bench';
const OPEN_AT_ONCE = 50;

const [url, countArg, intervalArg, token, rootArg] = process.argv.slice(2);
const root = resolve(rootArg ?? join(import.meta.dirname, '..'));
const { Connection: ConnectionClass } = (await import(
  pathToFileURL(join(root, 'src/client/connection.ts')).href
)) as ConnectionModule;
const count = Number(countArg);
const intervalMs = Number(intervalArg);

let errors = 0;
const errorSamples = new Set<string>();
let open = 0;
const joinWaiters = new Map<Connection, (ok: boolean) => void>();
const settle = (c: Connection, ok: boolean) => {
  joinWaiters.get(c)?.(ok);
  joinWaiters.delete(c);
};

const joinPayload = {
  config: {
    broadcast: { ack: false, self: false },
    presence: { key: '', enabled: false },
    postgres_changes: [],
    private: false,
  },
  access_token: token,
};

const hooks: ConnectionHooks = {
  onStamp: () => undefined,
  onOpen: (c) => {
    open++;
    c.join(TOPIC, joinPayload);
  },
  onJoined: (c) => settle(c, true),
  onError: (c, e) => {
    errors++;
    if (errorSamples.size < 5) errorSamples.add(`${e.class}: ${e.reason}`);
    settle(c, false);
  },
  onClosed: (c) => {
    if (c.openedAtMs > 0) open--;
    settle(c, false);
  },
  onAck: () => undefined,
  onFrame: () => undefined,
};

function openOne(index: number): Promise<Connection | null> {
  const c = new ConnectionClass(index, '2.0.0', hooks);
  return new Promise((done) => {
    joinWaiters.set(c, (ok) => done(ok ? c : null));
    c.connect({
      url: `${url}?vsn=2.0.0&apikey=${encodeURIComponent(token)}`,
      headers: {},
      handshakeTimeoutMs: 10_000,
    });
  });
}

/** Whether a connection's last heartbeat is still unanswered (the client keeps it private). */
function awaitingReply(c: Connection): boolean {
  return (c as unknown as { replies: AwaitedReplies }).replies.heartbeatRef !== null;
}

const slots = Math.max(1, Math.round(intervalMs / TICK_MS));
const bySlot: Connection[][] = Array.from({ length: slots }, () => []);
const conns: Connection[] = [];
let sent = 0;
let slot = 0;
let paused = false;
// Heartbeats start with the first join: a connection waiting for the others to join must not
// reach the server's idle timeout.
setInterval(() => {
  slot = (slot + 1) % slots;
  if (paused) return;
  for (const c of bySlot[slot]) {
    if (c.state !== 'open') continue;
    // A heartbeat still unanswered closes the connection instead (counted in errors).
    const late = awaitingReply(c);
    c.heartbeat();
    if (!late) sent++;
  }
}, TICK_MS);

for (let i = 0; i < count; i += OPEN_AT_ONCE) {
  const batch = Array.from({ length: Math.min(OPEN_AT_ONCE, count - i) }, (_, k) => openOne(i + k));
  for (const c of await Promise.all(batch)) {
    if (!c) continue;
    bySlot[conns.length % slots].push(c);
    conns.push(c);
  }
}
say({ joined: conns.length, failed: count - conns.length, errors: [...errorSamples] });

childControl(
  () => {
    let unanswered = 0;
    for (const c of conns) if (c.state === 'open' && awaitingReply(c)) unanswered++;
    return { sent, unanswered, open, errors, errorSamples: [...errorSamples] };
  },
  async () => {
    for (const c of conns) c.terminate();
  },
  {
    pause: () => (paused = true),
    resume: () => (paused = false),
  },
);
