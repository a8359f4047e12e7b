/**
 * `--workers N`: N server processes on one port (Node `cluster`, the primary hands out
 * connections) with a PubSub through the primary, as Phoenix PubSub spans nodes (issue 3
 * item 8). One process can hold at most ~20,000 sockets (its open-file limit).
 *
 * What crosses the IPC, and why it stays cheap:
 * - a fan-out: once per message per worker (never per delivery); each worker encodes and
 *   writes to its own members;
 * - presence operations: every worker keeps the replicated state and fans out diffs locally;
 * - rate counters: workers send their counts once per flush interval; the primary owns the
 *   instance-wide RateCounters, ticks them and sends the trip state back, so quotas are
 *   instance-wide (§8.1 counts per node; one rtcap instance is one node);
 * - the database: only the primary runs it; workers call it through a proxy, and each
 *   change is routed to the worker owning its subscription ids;
 * - /metrics: the primary gathers every registry as JSON and sums them.
 */
import cluster, { type Worker } from 'node:cluster';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { SOCKET_PATH } from '../protocol/constants.js';
import { databaseOptions, loadDatabase, type ChangeEvent, type DbStats, type ServerDb } from './db-types.js';
import { Metrics, type MetricsJson } from './metrics.js';
import { DEFAULT_TIMINGS, resolveTenants, type ServerOptions, type ServerTimings } from './options.js';
import type { PresenceOp } from './presence.js';
import type { RunningServer } from './server.js';
import { RealtimeServer } from './server.js';
import type { Gate, Tenant } from './tenant.js';
import { TenantRegistry } from './tenants.js';
import { Outgoing, type OutBody } from './wire.js';

const ENV_KEY = 'RTCAP_SERVE_WORKER';

/** Options a worker needs; plain data (no functions) so they cross the environment. */
interface WorkerSpec {
  node: number;
  port: number;
  host: string;
  jwtSecret?: string;
  /** Paths, never the key itself: the spec travels in the worker's environment. */
  tls?: ServerOptions['tls'];
  config?: ServerOptions['config'];
  timings: ServerTimings;
  maxBufferedBytes?: number;
  /** Redacted URL of the primary's database, or null. */
  dbUrl: string | null;
}

type CounterName = 'joins' | 'events' | 'presence' | 'dbEvents';
const COUNTERS: CounterName[] = ['joins', 'events', 'presence', 'dbEvents'];

type ToPrimary =
  | { t: 'ready'; port: number }
  | { t: 'fanout'; tenantId: string; key: string; topic: string; event: string; body: OutBody; gate: Gate }
  | { t: 'presence'; op: PresenceOp }
  | { t: 'counts'; tenants: Record<string, { c: number[]; users: number }> }
  | { t: 'db'; id: number; method: 'authorizeRead' | 'authorizeWrite' | 'subscribe' | 'unsubscribe'; args: unknown[] }
  | { t: 'metrics'; id: number }
  | { t: 'metricsJson'; id: number; json: MetricsJson };

type ToWorker =
  | { t: 'fanout'; tenantId: string; key: string; topic: string; event: string; body: OutBody; gate: Gate }
  | { t: 'presence'; op: PresenceOp }
  | { t: 'presenceDrop'; node: number }
  | { t: 'rates'; tenants: Record<string, { s: [boolean, number][]; remoteUsers: number }>; db: DbStats | null }
  | { t: 'dbReply'; id: number; ok: true; value: unknown }
  | { t: 'dbReply'; id: number; ok: false; error: { message: string; code?: string; retryable?: boolean } }
  | { t: 'change'; change: ChangeEvent }
  | { t: 'metricsJson?'; id: number }
  | { t: 'metricsText'; id: number; text: string }
  | { t: 'shutdown' };

function workerEntry(): { exec: string; execArgv: string[] } {
  const js = fileURLToPath(new URL('./worker-main.js', import.meta.url));
  if (existsSync(js)) return { exec: js, execArgv: [] };
  // Running from the TypeScript sources (tests, tsx): the workers need the same loader.
  return { exec: fileURLToPath(new URL('./worker-main.ts', import.meta.url)), execArgv: ['--import', 'tsx'] };
}

// ====================================================================== primary

export async function startCluster(opts: ServerOptions & { workers: number }): Promise<RunningServer & { workers: number }> {
  const log = opts.log ?? ((l: string) => process.stderr.write(`rtcap serve: ${l}\n`));
  const timings: ServerTimings = { ...DEFAULT_TIMINGS, ...opts.timings };
  const host = opts.host ?? '127.0.0.1';
  // The primary's own tenants hold the instance-wide counters only.
  const tenants = new TenantRegistry(resolveTenants(opts.config, opts.jwtSecret), timings);
  let db: ServerDb | null = null;
  if (opts.db) db = opts.db;
  else if (opts.database !== false) {
    try {
      db = await loadDatabase(databaseOptions(tenants.all[0].config, timings, opts.database?.databaseUrl, log));
    } catch (e) {
      log(`database unavailable: ${(e as Error).message}`);
    }
  }
  const ownsDb = !!db && !opts.db;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

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
  cluster.setupPrimary({ ...workerEntry(), args: [], serialization: 'advanced' });

  const workers = new Map<number, Worker>();
  const users = new Map<number, Map<string, number>>();
  /** subscription id → owning worker node. */
  const owners = new Map<string, number>();
  const pendingMetrics = new Map<number, { from: number; parts: MetricsJson[]; waiting: number; done: (parts: MetricsJson[]) => void }>();
  let metricsSeq = 0;
  let closing = false;

  const send = (w: Worker | undefined, m: ToWorker) => {
    if (w && w.isConnected()) w.send(m);
  };
  const others = (node: number, m: ToWorker) => {
    for (const [n, w] of workers) if (n !== node) send(w, m);
  };

  if (db) {
    db.onChange((change) => {
      const byNode = new Map<number, string[]>();
      for (const id of change.subscriptionIds) {
        const n = owners.get(id);
        if (n === undefined) continue;
        const list = byNode.get(n);
        if (list) list.push(id);
        else byNode.set(n, [id]);
      }
      for (const [n, ids] of byNode) send(workers.get(n), { t: 'change', change: { data: change.data, subscriptionIds: ids } });
    });
  }

  const onDb = async (node: number, m: Extract<ToPrimary, { t: 'db' }>) => {
    const w = workers.get(node);
    try {
      if (!db) throw Object.assign(new Error('database unavailable'), { code: 'db_error' });
      let value: unknown;
      if (m.method === 'subscribe') {
        const sub = m.args[0] as { subscriptionId: string };
        owners.set(sub.subscriptionId, node);
        value = await db.subscribe(m.args[0] as Parameters<ServerDb['subscribe']>[0]);
      } else if (m.method === 'unsubscribe') {
        for (const id of m.args[0] as string[]) owners.delete(id);
        value = await db.unsubscribe(m.args[0] as string[]);
      } else if (m.method === 'authorizeRead') {
        value = await db.authorizeRead(m.args[0] as Parameters<ServerDb['authorizeRead']>[0], m.args[1] as { presence: boolean });
      } else {
        value = await db.authorizeWrite(m.args[0] as Parameters<ServerDb['authorizeWrite']>[0], m.args[1] as 'broadcast' | 'presence');
      }
      send(w, { t: 'dbReply', id: m.id, ok: true, value: value ?? null });
    } catch (e) {
      const err = e as Error & { code?: string; retryable?: boolean };
      send(w, { t: 'dbReply', id: m.id, ok: false, error: { message: err.message, code: err.code, retryable: err.retryable } });
    }
  };

  const onMessage = (node: number, m: ToPrimary) => {
    switch (m.t) {
      case 'fanout':
        return others(node, m);
      case 'presence':
        return others(node, m);
      case 'counts': {
        const u = new Map<string, number>();
        for (const [id, c] of Object.entries(m.tenants)) {
          const t = tenants.get(id);
          u.set(id, c.users);
          if (!t) continue;
          COUNTERS.forEach((name, i) => t[name].add(c.c[i]));
        }
        users.set(node, u);
        return;
      }
      case 'db':
        return void onDb(node, m);
      case 'metrics': {
        const id = metricsSeq++;
        const live = [...workers.values()].filter((w) => w.isConnected());
        const entry = {
          from: node,
          parts: [] as MetricsJson[],
          waiting: live.length,
          done: (parts: MetricsJson[]) => {
            void registry
              .getMetricsAsJSON()
              .then((own) => Metrics.aggregate([...parts, own]))
              .then(
                (text) => send(workers.get(node), { t: 'metricsText', id: m.id, text }),
                (e: Error) => send(workers.get(node), { t: 'metricsText', id: m.id, text: `# metrics aggregation failed: ${e.message}\n` }),
              );
          },
        };
        pendingMetrics.set(id, entry);
        for (const w of live) send(w, { t: 'metricsJson?', id });
        setTimeout(() => {
          const p = pendingMetrics.get(id);
          if (p) {
            pendingMetrics.delete(id);
            p.done(p.parts);
          }
        }, 2000).unref();
        return;
      }
      case 'metricsJson': {
        const p = pendingMetrics.get(m.id);
        if (!p) return;
        p.parts.push(m.json);
        if (--p.waiting <= 0) {
          pendingMetrics.delete(m.id);
          p.done(p.parts);
        }
        return;
      }
      case 'ready':
        return;
    }
  };

  const tick = setInterval(() => {
    const perTenantUsers = new Map<string, number>();
    for (const u of users.values()) for (const [id, n] of u) perTenantUsers.set(id, (perTenantUsers.get(id) ?? 0) + n);
    for (const t of tenants.all) t.tick();
    const dbStats = db ? db.stats() : null;
    for (const [node, w] of workers) {
      const mine = users.get(node);
      const rates: Extract<ToWorker, { t: 'rates' }>['tenants'] = {};
      for (const t of tenants.all) {
        rates[t.id] = {
          s: COUNTERS.map((name) => [t[name].tripped, t[name].value] as [boolean, number]),
          remoteUsers: (perTenantUsers.get(t.id) ?? 0) - (mine?.get(t.id) ?? 0),
        };
      }
      send(w, { t: 'rates', tenants: rates, db: dbStats });
    }
  }, timings.rateTickMs);
  tick.unref();

  const fork = (node: number, listenPort: number) =>
    new Promise<number>((resolve, reject) => {
      const w = cluster.fork({ [ENV_KEY]: JSON.stringify(spec(node, listenPort)) });
      workers.set(node, w);
      let ready = false;
      w.on('message', (m: ToPrimary) => {
        if (m.t === 'ready' && !ready) {
          ready = true;
          resolve(m.port);
        }
        onMessage(node, m);
      });
      w.on('exit', (code, signal) => {
        workers.delete(node);
        users.delete(node);
        for (const [id, n] of owners) if (n === node) owners.delete(id);
        if (!ready) reject(new Error(`worker ${node} exited during start (${signal ?? `code ${code}`})`));
        else if (!closing) {
          log(`worker ${node} exited (${signal ?? `code ${code}`}); its connections are gone`);
          for (const other of workers.values()) send(other, { t: 'presenceDrop', node });
        }
      });
    });

  let port: number;
  try {
    // Every worker listens with the same arguments: the primary keys its shared handle on
    // them, so with port 0 all workers get the one free port the first listen picked.
    port = await fork(1, opts.port ?? 4000);
    const rest: Promise<number>[] = [];
    for (let n = 2; n <= opts.workers; n++) rest.push(fork(n, opts.port ?? 4000));
    const ports = await Promise.all(rest);
    if (ports.some((p) => p !== port)) throw new Error(`workers listen on different ports: ${[port, ...ports].join(', ')}`);
  } catch (e) {
    closing = true;
    for (const w of workers.values()) w.kill('SIGKILL');
    if (ownsDb) await db!.stop().catch(() => undefined);
    throw e;
  }

  const close = async () => {
    if (closing) return;
    closing = true;
    clearInterval(tick);
    const exits = [...workers.values()].map(
      (w) =>
        new Promise<void>((resolve) => {
          if (w.isDead()) return resolve();
          const timer = setTimeout(() => {
            w.kill('SIGKILL');
            resolve();
          }, 10_000);
          w.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
          send(w, { t: 'shutdown' });
        }),
    );
    await Promise.all(exits);
    if (ownsDb && db) await db.stop().catch((e) => log(`database stop failed: ${(e as Error).message}`));
  };

  return { port, host, url: `${opts.tls ? 'wss' : 'ws'}://${host}:${port}${SOCKET_PATH}`, databaseUrl: db?.url ?? null, databaseConnectionString: db?.connectionString() ?? null, workers: opts.workers, close };
}

// ====================================================================== worker

/** The database seen from a worker: every call goes to the primary. */
class RemoteDb implements ServerDb {
  private seq = 0;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly listeners: ((c: ChangeEvent) => void)[] = [];
  cachedStats: DbStats = { authPoolWaiting: 0, authErrors: 0, pollerLagMs: null, lastPollMs: null };

  constructor(
    readonly url: string,
    private readonly post: (m: ToPrimary) => void,
  ) {}

  private call<T>(method: Extract<ToPrimary, { t: 'db' }>['method'], args: unknown[]): Promise<T> {
    const id = this.seq++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.post({ t: 'db', id, method, args });
    });
  }

  connectionString(): string {
    // Only the primary hands the unredacted URL out (rtcap serve --database-url-file).
    return this.url;
  }

  reply(m: Extract<ToWorker, { t: 'dbReply' }>): void {
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    if (m.ok) p.resolve(m.value);
    else p.reject(Object.assign(new Error(m.error.message), { code: m.error.code, retryable: m.error.retryable }));
  }

  change(c: ChangeEvent): void {
    for (const l of this.listeners) l(c);
  }

  authorizeRead(ctx: Parameters<ServerDb['authorizeRead']>[0], opts: { presence: boolean }) {
    return this.call<{ broadcast: boolean; presence: boolean }>('authorizeRead', [ctx, opts]);
  }
  authorizeWrite(ctx: Parameters<ServerDb['authorizeWrite']>[0], extension: 'broadcast' | 'presence') {
    return this.call<boolean>('authorizeWrite', [ctx, extension]);
  }
  async subscribe(sub: Parameters<ServerDb['subscribe']>[0]): Promise<void> {
    await this.call('subscribe', [sub]);
  }
  async unsubscribe(ids: string[]): Promise<void> {
    await this.call('unsubscribe', [ids]);
  }
  onChange(cb: (c: ChangeEvent) => void): void {
    this.listeners.push(cb);
  }
  stats(): DbStats {
    return this.cachedStats;
  }
  async stop(): Promise<void> {}
}

/** Entry of a worker process (src/server/worker-main.ts). */
export async function runWorker(): Promise<void> {
  const raw = process.env[ENV_KEY];
  if (!raw || !cluster.isWorker) throw new Error('not started as an rtcap serve worker');
  const spec = JSON.parse(raw) as WorkerSpec;
  const post = (m: ToPrimary) => {
    if (process.connected) process.send!(m);
  };
  const remoteDb = spec.dbUrl ? new RemoteDb(spec.dbUrl, post) : null;
  const server = new RealtimeServer({
    port: spec.port,
    host: spec.host,
    jwtSecret: spec.jwtSecret,
    tls: spec.tls,
    config: spec.config,
    timings: spec.timings,
    maxBufferedBytes: spec.maxBufferedBytes,
    database: false,
    ...(remoteDb ? { db: remoteDb } : {}),
    log: (l) => process.stderr.write(`rtcap serve [worker ${spec.node}]: ${l}\n`),
  });
  server.externalTicks = true;
  server.node = spec.node;
  server.presence.node = spec.node;
  server.presence.bridge = { forward: (op) => post({ t: 'presence', op }) };
  for (const t of server.tenants.all) {
    t.bridge = { forward: (tenantId, key, out, gate) => post({ t: 'fanout', tenantId, key, topic: out.topic, event: out.event, body: out.body, gate }) };
  }
  const pendingText = new Map<number, (text: string) => void>();
  let textSeq = 0;
  server.metrics.clusterText = () =>
    new Promise<string>((resolve) => {
      const id = textSeq++;
      pendingText.set(id, resolve);
      post({ t: 'metrics', id });
    });

  const flush = () => {
    const tenants: Extract<ToPrimary, { t: 'counts' }>['tenants'] = {};
    for (const t of server.tenants.all) {
      tenants[t.id] = { c: COUNTERS.map((name) => takePending(t, name)), users: t.users.size };
    }
    post({ t: 'counts', tenants });
  };
  const flushTimer = setInterval(flush, Math.max(20, Math.min(250, Math.floor(spec.timings.rateTickMs / 4))));
  flushTimer.unref();

  let closing = false;
  const shutdown = async () => {
    if (closing) return;
    closing = true;
    clearInterval(flushTimer);
    await server.close().catch(() => undefined);
    process.exit(0);
  };

  process.on('message', (m: ToWorker) => {
    switch (m.t) {
      case 'fanout': {
        const t = server.tenantById(m.tenantId);
        if (!t) return;
        const n = t.deliverLocal(m.key, new Outgoing(m.topic, m.event, m.body), null, m.gate);
        if (m.gate === 'presence') server.stats.presenceEvents += n;
        else server.stats.deliveries += n;
        return;
      }
      case 'presence':
        return server.presence.applyRemote(m.op);
      case 'presenceDrop':
        return server.presence.dropNode(m.node, (id) => server.tenantById(id));
      case 'rates':
        for (const [id, r] of Object.entries(m.tenants)) {
          const t = server.tenantById(id);
          if (!t) continue;
          COUNTERS.forEach((name, i) => t[name].setState(r.s[i][0], r.s[i][1]));
          t.remoteUsers = r.remoteUsers;
        }
        if (remoteDb && m.db) remoteDb.cachedStats = m.db;
        return;
      case 'dbReply':
        return remoteDb?.reply(m);
      case 'change':
        return remoteDb?.change(m.change);
      case 'metricsJson?':
        void server.metrics.json().then((json) => post({ t: 'metricsJson', id: m.id, json }));
        return;
      case 'metricsText': {
        const r = pendingText.get(m.id);
        pendingText.delete(m.id);
        r?.(m.text);
        return;
      }
      case 'shutdown':
        void shutdown();
        return;
    }
  });
  // The primary coordinates shutdown; a worker whose primary is gone stops too.
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => void shutdown());
  process.on('disconnect', () => void shutdown());

  await new Promise<void>((resolve, reject) => {
    server.http.once('error', reject);
    server.http.listen(spec.port, spec.host, () => resolve());
  });
  server.startTimers();
  await server.startDatabase();
  const addr = server.http.address();
  post({ t: 'ready', port: typeof addr === 'object' && addr ? addr.port : spec.port });
}

function takePending(t: Tenant, name: CounterName): number {
  const c = t[name];
  const n = c.pending;
  c.pending = 0;
  return n;
}
