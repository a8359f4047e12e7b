/**
 * `--workers N`: N server processes on one port (Node `cluster`, the primary hands out
 * connections) with a PubSub through the primary, as Phoenix PubSub spans nodes. One
 * process can hold at most ~20,000 sockets (its open-file limit).
 *
 * What crosses the IPC, and why it stays cheap:
 * - a fan-out: once per message per worker (never per delivery); each worker encodes and
 *   writes to its own members;
 * - presence operations: every worker keeps the replicated state and fans out diffs locally;
 * - rate counters: workers send their counts once per flush interval; the primary owns the
 *   instance-wide RateCounters, ticks them and sends the trip state back, so quotas are
 *   instance-wide (primary-rates.ts);
 * - the database: only the primary runs it (primary-db.ts); workers call it through a proxy
 *   (remote-db.ts), and each change is routed to the worker owning its subscription ids;
 * - /metrics: the primary gathers every registry as JSON and sums them (primary-metrics.ts).
 *
 * A worker may die at any moment (killed, out of memory): the primary never dies with it.
 * Every send is guarded (a send to a worker whose pipe just broke reports EPIPE to its
 * callback, not as an uncaught error), and the exit drops the worker from every table.
 */
import cluster, { type Worker } from 'node:cluster';
import { Registry } from 'prom-client';
import { SOCKET_PATH } from '../../protocol/constants.js';
import { resolveTenants } from '../../builtin/config.js';
import { DEFAULT_TIMINGS, type ServerOptions, type ServerTimings } from '../options.js';
import type { RunningServer } from '../server.js';
import { TenantRegistry } from '../tenants.js';
import { WORKER_SPEC_ENV, type ToPrimary, type ToWorker, type WorkerSpec } from './messages.js';
import { openDatabase, PrimaryDatabase } from './primary-db.js';
import { defaultNodeMetrics } from '../metrics.js';
import { MetricsGather } from './primary-metrics.js';
import { PrimaryRates } from './primary-rates.js';
import { workerEntry } from './worker-flags.js';

/** How long close() waits for a worker to stop after `shutdown` before killing it. */
const WORKER_STOP_WAIT_MS = 10_000;

type ClusterOptions = ServerOptions & {
  workers: number;
  /**
   * round-robin: the primary accepts and hands each connection to the next worker, one hand-off
   * in flight per worker, so on a loaded machine the hand-offs' IPC round trips bound the join
   * rate (≈ 150–200/s over 6 workers, 2 cores at load 20–30); shared: every worker accepts from
   * the one listening socket (Node's SCHED_NONE), no round trip, spread by the kernel.
   */
  accept?: 'round-robin' | 'shared';
};

export async function startCluster(
  opts: ClusterOptions,
): Promise<RunningServer & { workers: number }> {
  const log = opts.log ?? ((l: string) => process.stderr.write(`rtcap serve: ${l}\n`));
  const timings: ServerTimings = { ...DEFAULT_TIMINGS, ...opts.timings };
  const host = opts.host ?? '127.0.0.1';
  // The primary's own tenants hold the instance-wide counters only.
  const tenants = new TenantRegistry(resolveTenants(opts.config, opts.jwtSecret), timings);
  const db =
    opts.db ??
    (opts.database === false ? null : await openDatabase(opts.database, tenants, timings, log));
  const ownsDb = !!db && !opts.db;
  const stopDb = async () => {
    if (ownsDb) await db!.stop().catch((e) => log(`database stop failed: ${(e as Error).message}`));
  };
  const spec = (node: number, port: number): WorkerSpec => ({
    node,
    port,
    host,
    jwtSecret: opts.jwtSecret,
    tls: opts.tls,
    config: opts.config,
    timings,
    maxBufferedBytes: opts.maxBufferedBytes,
    dbUrl: db?.url ?? null,
  });
  cluster.schedulingPolicy = opts.accept === 'shared' ? cluster.SCHED_NONE : cluster.SCHED_RR;
  cluster.setupPrimary({ ...workerEntry(), args: [], serialization: 'advanced' });
  const primary = new ClusterPrimary(tenants, new PrimaryDatabase(db), timings, { spec, log });

  let port: number;
  try {
    port = await primary.forkAll(opts.workers, opts.port ?? 4000);
  } catch (e) {
    primary.killAll();
    await stopDb();
    throw e;
  }
  return {
    port,
    host,
    url: `${opts.tls ? 'wss' : 'ws'}://${host}:${port}${SOCKET_PATH}`,
    databaseUrl: db?.url ?? null,
    databaseConnectionString: db?.connectionString() ?? null,
    workers: opts.workers,
    close: async () => {
      if (await primary.close()) await stopDb();
    },
  };
}

/** The primary's state: its workers, the instance-wide rates, and the relays between them. */
class ClusterPrimary {
  private readonly workers = new Map<number, Worker>();
  /** Workers that stopped accepting near their open-file limit (accept-gate.ts). */
  private readonly notAccepting = new Set<number>();
  /** Workers a failed send was already logged for (one line per worker, not per message). */
  private readonly unreachable = new Set<number>();
  private readonly registry = new Registry();
  private readonly metrics = new MetricsGather(this.registry);
  private readonly rates: PrimaryRates;
  private readonly tick: NodeJS.Timeout;
  private closing = false;

  private readonly spec: (node: number, port: number) => WorkerSpec;
  private readonly log: (l: string) => void;

  /** `workers.spec`: what worker `node` is started with; `workers.log`: the cluster's log. */
  constructor(
    tenants: TenantRegistry,
    private readonly db: PrimaryDatabase,
    timings: ServerTimings,
    workers: { spec: (node: number, port: number) => WorkerSpec; log: (l: string) => void },
  ) {
    this.spec = workers.spec;
    this.log = workers.log;
    this.rates = new PrimaryRates(tenants);
    defaultNodeMetrics(this.registry);
    db.db?.onChange((change) => {
      for (const [n, c] of db.route(change)) this.send(n, { t: 'change', change: c });
    });
    this.tick = setInterval(() => this.sendRates(), timings.rateTickMs);
    this.tick.unref();
  }

  /**
   * Sends to one worker if it is still there. A worker can die between the connected check
   * and the write (its end of the pipe closed, the exit not yet read): the write then fails
   * with EPIPE, which the callback receives instead of an uncaught 'error' event.
   */
  private send(node: number, m: ToWorker): void {
    const w = this.workers.get(node);
    if (!w || !w.isConnected()) return;
    w.send(m, (err) => {
      if (err) this.unreachableWorker(node, err);
    });
  }

  private unreachableWorker(node: number, err: Error): void {
    if (this.closing || this.unreachable.has(node)) return;
    this.unreachable.add(node);
    this.log(`worker ${node} unreachable (${err.message}); it is going away`);
  }

  private others(node: number, m: ToWorker): void {
    for (const n of this.workers.keys()) if (n !== node) this.send(n, m);
  }

  private onMessage(node: number, m: ToPrimary): void {
    switch (m.t) {
      case 'fanout':
      case 'presence':
        return this.others(node, m);
      case 'counts':
        return this.rates.counts(node, m);
      case 'db':
        void this.db.answer(node, m).then((reply) => this.send(node, reply));
        return;
      case 'metrics': {
        const live = [...this.workers].filter(([, w]) => w.isConnected()).map(([n]) => n);
        const ask = (id: number, n: number) => this.send(n, { t: 'metricsJson?', id });
        const reply = (text: string) => this.send(node, { t: 'metricsText', id: m.id, text });
        this.metrics.start(live, ask, reply);
        return;
      }
      case 'metricsJson':
        return this.metrics.part(m.id, node, m.json);
      case 'acceptFull':
        return this.acceptFull(node);
      case 'acceptResumed':
        this.notAccepting.delete(node);
        return;
      case 'ready':
        return;
    }
  }

  /**
   * A worker near its open-file limit may stop accepting while another still accepts; the last
   * one keeps accepting (and resets what it cannot hold: the whole server is out of files).
   */
  private acceptFull(node: number): void {
    const others = [...this.workers.keys()].filter((n) => n !== node && !this.notAccepting.has(n));
    const ok = others.length > 0;
    if (ok) this.notAccepting.add(node);
    this.send(node, { t: 'acceptPause', ok });
  }

  /** Ticks the instance-wide counters and sends each worker their state (primary-rates.ts). */
  private sendRates(): void {
    const db = this.db.db ? this.db.db.stats() : null;
    this.rates.tick(this.workers.keys(), (node, tenants) =>
      this.send(node, { t: 'rates', tenants, db }),
    );
  }

  /**
   * Forks every worker; resolves with the one port they all listen on. Every worker listens
   * with the same arguments: the primary keys its shared handle on them, so with port 0 all
   * workers get the one free port the first listen picked.
   */
  async forkAll(count: number, listenPort: number): Promise<number> {
    const port = await this.fork(1, listenPort);
    const rest: Promise<number>[] = [];
    for (let n = 2; n <= count; n++) rest.push(this.fork(n, listenPort));
    const ports = await Promise.all(rest);
    if (ports.some((p) => p !== port)) {
      throw new Error(`workers listen on different ports: ${[port, ...ports].join(', ')}`);
    }
    return port;
  }

  private fork(node: number, listenPort: number): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      const w = cluster.fork({ [WORKER_SPEC_ENV]: JSON.stringify(this.spec(node, listenPort)) });
      this.workers.set(node, w);
      let ready = false;
      w.on('message', (m: ToPrimary) => {
        if (m.t === 'ready' && !ready) {
          ready = true;
          resolve(m.port);
        }
        this.onMessage(node, m);
      });
      // A send without a callback, or a failed kill, reports here; never uncaught.
      w.on('error', (err: Error) => this.unreachableWorker(node, err));
      w.on('exit', (code, signal) => {
        this.onExit(node);
        const how = signal ?? `code ${code}`;
        if (!ready) reject(new Error(`worker ${node} exited during start (${how})`));
        else if (!this.closing) {
          this.log(`worker ${node} exited (${how}); its connections are gone`);
          this.others(node, { t: 'presenceDrop', node });
        }
      });
    });
  }

  /** A worker is gone: nothing routes to it or waits for it any more. */
  private onExit(node: number): void {
    this.workers.delete(node);
    this.notAccepting.delete(node);
    this.rates.dropNode(node);
    this.db.dropNode(node);
    this.metrics.dropNode(node);
  }

  killAll(): void {
    this.closing = true;
    clearInterval(this.tick);
    for (const w of this.workers.values()) w.kill('SIGKILL');
  }

  /** Stops every worker (SIGKILL after the wait); false when already closing. */
  async close(): Promise<boolean> {
    if (this.closing) return false;
    this.closing = true;
    clearInterval(this.tick);
    const exits = [...this.workers].map(([node, w]) => this.stopWorker(node, w));
    await Promise.all(exits);
    return true;
  }

  private stopWorker(node: number, w: Worker): Promise<void> {
    return new Promise<void>((resolve) => {
      if (w.isDead()) return resolve();
      const timer = setTimeout(() => {
        w.kill('SIGKILL');
        resolve();
      }, WORKER_STOP_WAIT_MS);
      w.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      this.send(node, { t: 'shutdown' });
    });
  }
}
