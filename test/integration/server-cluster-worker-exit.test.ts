/**
 * `rtcap serve --workers 2` when a worker dies: the primary was answering that worker's
 * database calls (private-channel authorisation) at the moment the worker went away. The
 * primary must not die of the broken IPC pipe (`write EPIPE` from Worker.send); the other
 * worker keeps serving joins, broadcasts, the database and /metrics.
 */
import cluster from 'node:cluster';
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster } from '../../src/server/cluster/primary.js';
import { startDatabase } from '../../src/server/db/index.js';
import type { ServerDb } from '../../src/server/db/server-db.js';
import type { RunningServer } from '../../src/server/server.js';
import { FAST_TIMINGS, RawClient, token, until } from '../server/helpers.js';

let db: ServerDb;
let srv: RunningServer & { workers: number };
const clients: RawClient[] = [];
const logs: string[] = [];

/**
 * The real database, with its authorisation answers held back while `holding` is set, so
 * the test can kill a worker between the database's answer and the primary's reply.
 */
const held: (() => void)[] = [];
let holding = false;
function holdingDb(real: ServerDb): ServerDb {
  const wrapped: ServerDb = Object.create(real) as ServerDb;
  wrapped.authorizeRead = async (ctx, opts) => {
    const value = await real.authorizeRead(ctx, opts);
    if (holding) await new Promise<void>((resolve) => held.push(resolve));
    return value;
  };
  return wrapped;
}

/**
 * True once a process has exited and closed its files (Linux /proc): its main thread is a
 * zombie and every other thread is gone. The main thread turns zombie before the others
 * finish exiting, and the open files (the IPC pipe) close only when the last thread does.
 */
function exitedWithFilesClosed(pid: number): boolean {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0];
    return state === 'Z' && readdirSync(`/proc/${pid}/task`).length === 1;
  } catch {
    return true; // already reaped
  }
}

/** Kills a worker and waits, without yielding to the event loop, until its pipes are closed. */
function killAndWaitDead(pid: number): void {
  process.kill(pid, 'SIGKILL');
  const deadline = Date.now() + 5000;
  while (!exitedWithFilesClosed(pid)) {
    if (Date.now() > deadline) throw new Error(`worker ${pid} did not exit after SIGKILL`);
  }
}

beforeAll(async () => {
  db = await startDatabase({ dbPool: 2, subsPoolSize: 1, pollIntervalMs: 20 });
  srv = await startCluster({
    workers: 2,
    port: 0,
    db: holdingDb(db),
    timings: { ...FAST_TIMINGS, rateTickMs: 100 },
    log: (l) => logs.push(l),
  });
});
afterAll(async () => {
  for (const c of clients) c.close();
  await srv?.close();
  await db?.stop();
});

async function open(): Promise<RawClient> {
  const apikey = await token({ role: 'authenticated', sub: 'u1' });
  const c = await RawClient.open(srv.port, { vsn: '2.0.0', apikey });
  clients.push(c);
  return c;
}

function joinPrivate(c: RawClient, topic: string, ref: string): void {
  c.send([ref, ref, topic, 'phx_join', { config: { private: true } }]);
}

describe('a worker killed while the primary answers its database calls', () => {
  it('leaves the primary serving through the other worker', async () => {
    // Connections are handed out round-robin: four sockets reach both workers.
    const first: RawClient[] = [];
    for (let i = 0; i < 4; i++) first.push(await open());
    holding = true;
    first.forEach((c) => joinPrivate(c, 'realtime:room-exit', '1'));
    await until(() => held.length >= 4, 8000, 'four authorisations answered by the database');

    const victim = Object.values(cluster.workers ?? {})[1];
    expect(victim?.process.pid).toBeGreaterThan(0);
    // Dead with its end of the IPC pipe closed, before the primary has read the hang-up:
    // the replies released next are written into a broken pipe.
    killAndWaitDead(victim!.process.pid!);
    holding = false;
    held.splice(0).forEach((release) => release());

    await until(() => victim!.isDead(), 5000, 'the primary to see the worker exit');
    expect(logs).toContain('worker 2 exited (SIGKILL); its connections are gone');
    // The replies did meet the broken pipe, and the primary took it as a worker going away.
    expect(logs).toContain('worker 2 unreachable (write EPIPE); it is going away');
    const answered = (c: RawClient) => c.closeCode !== null || c.frames.length > 0;
    await until(() => first.every(answered), 8000, 'a reply or a close on every socket');
    const survivors = first.filter((c) => c.closeCode === null);
    expect(survivors.length).toBe(2);
    for (const c of survivors) {
      expect((await c.v2('phx_reply', '1', 8000))[4]).toMatchObject({ status: 'ok' });
    }

    // New sockets all reach the live worker: private joins (the primary's database),
    // broadcasts and /metrics still work.
    const a = await open();
    const b = await open();
    joinPrivate(a, 'realtime:room-after-exit', '1');
    joinPrivate(b, 'realtime:room-after-exit', '1');
    expect((await a.v2('phx_reply', '1', 8000))[4]).toMatchObject({ status: 'ok' });
    expect((await b.v2('phx_reply', '1', 8000))[4]).toMatchObject({ status: 'ok' });
    b.send([null, '2', 'realtime:room-after-exit', 'broadcast', { event: 'e', payload: { n: 1 } }]);
    const delivered = (await a.v2('broadcast', null, 8000))[4];
    expect(delivered).toMatchObject({ event: 'e', payload: { n: 1 } });
    const res = await fetch(`http://127.0.0.1:${srv.port}/metrics`);
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/^realtime_connections_connected 4$/m);
  });
});
