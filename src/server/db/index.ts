/**
 * The tenant database of rtcap's built-in realtime server: a real PostgreSQL (embedded, or
 * `databaseUrl`), the Supabase-shaped schema (migration.ts), private-channel authorisation
 * through a `db_pool`-sized pool (authorize.ts, docs/PROTOCOL.md §6), and Postgres Changes from
 * a logical replication slot (poller.ts, apply-rls.ts, docs/PROTOCOL.md §7).
 *
 * Its interface (server-db.ts) is the one agreed with the server (src/server/db-types.ts), plus
 * these additions:
 * - options `slowPolicyMs` (per-check sleep of the `slow-*` topic policies, default 100),
 *   `subsErrorWindowMs` (default: authErrorWindowMs), `checkTimeoutMs` (a check's query
 *   limit, default 15 000, DBConnection's default timeout), `templateCache` (start from a
 *   cached initdb + migration, default true), `slotName` (default: a random
 *   `supabase_realtime_replication_slot_rtcap_<hex>`, so several instances can share one
 *   database);
 *   `slowPolicyMs` is a row in the database (`rtcap_bench.settings`): instances sharing a
 *   database share it;
 * - `ServerDb.setSlowPolicyMs(ms)`, `ServerDb.publication`, `ServerDb.slotName`,
 *   `ServerDb.startup` (timings of the embedded start; null with databaseUrl);
 * - `stats()` also reports `subsErrors`, `subscriptions`, `polls`, `changes`,
 *   `changeEvents` and `pollerRestarts`.
 * onChange is called once per change and distinct payload: subscribers whose roles see
 * different columns of a row get separate calls; usually that is one call per change.
 * The bench tables, topics and policies profiles can use are listed in migration.ts.
 */
import pg from 'pg';
import { redactUrl } from '../../redact/redact.js';
import type { ChangeEvent } from './apply-rls.js';
import { Authorizer } from './authorize.js';
import { startEmbedded, type EmbeddedHandle, type EmbeddedTimings } from './embedded.js';
import { DEFAULT_PUBLICATION, migrate, setSlowPolicyMs } from './migration.js';
import { Poller } from './poller.js';
import { ConnectionPool } from './pool.js';
import { ErrorWindow } from './rate-counter.js';
import { Subscriptions } from './subscriptions.js';
import { SubscriptionRegistry } from './subscription-registry.js';
import type { DatabaseOptions, ServerDb } from './server-db.js';

export { AuthorizationError, SubscriptionError, TOO_MANY_DB_TIMEOUTS } from './errors.js';
export type { AuthorizationErrorCode } from './errors.js';
export type { AuthContext } from './authorize.js';
export type { ChangeData, ChangeEvent } from './apply-rls.js';
export type { SubscriptionRequest } from './subscriptions.js';
export { DEFAULT_PUBLICATION } from './migration.js';

/** Stop functions run in reverse order of their start; a failing one is logged, not thrown. */
class Cleanups {
  private readonly fns: (() => Promise<void>)[] = [];
  constructor(private readonly log: (line: string) => void) {}
  push(...fns: (() => Promise<void>)[]): void {
    this.fns.push(...fns);
  }
  async run(): Promise<void> {
    for (const fn of this.fns.splice(0).reverse())
      await fn().catch((e: Error) => this.log(`db stop: ${e.message}`));
  }
}

/** The schema (unless the embedded template already has it) and the slow-policy setting. */
async function prepareSchema(
  connectionString: string,
  runMigration: boolean,
  publication: string,
  slowPolicyMs: number | undefined,
): Promise<void> {
  const admin = new pg.Client({ connectionString, application_name: 'realtime_migrations' });
  await admin.connect();
  try {
    if (runMigration) await migrate(admin, publication);
    if (slowPolicyMs !== undefined) await setSlowPolicyMs(admin, slowPolicyMs);
  } finally {
    await admin.end();
  }
}

/** The authorisation pool (`db_pool`) and the subscription-insert pool (`subs_pool_size`). */
async function startPools(
  connectionString: string,
  sizes: { dbPool: number; subsPoolSize: number },
  checkTimeoutMs: number,
  log: (line: string) => void,
): Promise<{ authPool: ConnectionPool; subsPool: ConnectionPool }> {
  const pool = (size: number, applicationName: string) =>
    new ConnectionPool({
      connectionString,
      size,
      applicationName,
      queryTimeoutMs: checkTimeoutMs,
      log,
    });
  const authPool = pool(sizes.dbPool, 'realtime_connect');
  const subsPool = pool(sizes.subsPoolSize, 'realtime_subscription_manager_pub');
  await Promise.all([authPool.start(), subsPool.start()]);
  return { authPool, subsPool };
}

/** docs/PROTOCOL.md §6.4: 1 s tick × 30 buckets, sum, limit = pool size; one window per pool. */
function startErrorWindows(
  opts: DatabaseOptions,
  sizes: { dbPool: number; subsPoolSize: number },
): { authErrors: ErrorWindow; subsErrors: ErrorWindow } {
  const authErrorWindowMs = opts.authErrorWindowMs ?? 30_000;
  const authErrors = new ErrorWindow({ windowMs: authErrorWindowMs, limit: sizes.dbPool });
  const subsErrors = new ErrorWindow({
    windowMs: opts.subsErrorWindowMs ?? authErrorWindowMs,
    limit: sizes.subsPoolSize,
  });
  authErrors.start();
  subsErrors.start();
  return { authErrors, subsErrors };
}

/** The parts of a started database that its ServerDb face reads. */
interface Started {
  url: string;
  connectionString: string;
  publication: string;
  startup: EmbeddedTimings | null;
  authPool: ConnectionPool;
  authErrors: ErrorWindow;
  subsErrors: ErrorWindow;
  authorizer: Authorizer;
  registry: SubscriptionRegistry;
  subscriptions: Subscriptions;
  poller: Poller;
  listeners: ((change: ChangeEvent) => void)[];
  stop(): Promise<void>;
}

function serverDbOf(p: Started): ServerDb {
  const { authPool, authErrors, subsErrors, registry, poller, connectionString } = p;
  return {
    url: p.url,
    connectionString: () => connectionString,
    publication: p.publication,
    slotName: poller.slotName,
    startup: p.startup,
    authorizeRead: (ctx, o) => p.authorizer.read(ctx, o.presence),
    authorizeWrite: (ctx, extension) => p.authorizer.write(ctx, extension),
    subscribe: (sub) => p.subscriptions.subscribe(sub),
    unsubscribe: (ids) => p.subscriptions.unsubscribe(ids),
    onChange: (cb) => {
      p.listeners.push(cb);
    },
    stats: () => ({
      authPoolWaiting: authPool.waiting,
      authErrors: authErrors.count,
      pollerLagMs: poller.stats.lagMs,
      lastPollMs: poller.stats.lastPollMs,
      subsErrors: subsErrors.count,
      subscriptions: registry.size,
      polls: poller.stats.polls,
      changes: poller.stats.changes,
      changeEvents: poller.stats.events,
      pollerRestarts: poller.stats.restarts,
    }),
    setSlowPolicyMs: async (ms) => {
      const c = new pg.Client({ connectionString, application_name: 'rtcap_bench' });
      await c.connect();
      try {
        await setSlowPolicyMs(c, ms);
      } finally {
        await c.end();
      }
    },
    stop: p.stop,
  };
}

/** The pools' sizes: `db_pool` and `subs_pool_size`, each at least 1. */
function poolSizes(opts: DatabaseOptions): { dbPool: number; subsPoolSize: number } {
  return {
    dbPool: Math.max(1, Math.floor(opts.dbPool || 1)),
    subsPoolSize: Math.max(1, Math.floor(opts.subsPoolSize || 1)),
  };
}

/** Where the database is: an embedded one started now, or `databaseUrl`. */
async function openPostgres(
  opts: DatabaseOptions,
  log: (line: string) => void,
): Promise<{ embedded: EmbeddedHandle | null; connectionString: string; url: string }> {
  // The default-publication migration is baked into the embedded template (embedded.ts).
  const embedded = opts.databaseUrl
    ? null
    : await startEmbedded({ templateCache: opts.templateCache, withSchema: true, log });
  const connectionString = embedded ? embedded.connectionString : opts.databaseUrl!;
  const url = embedded ? embedded.redactedUrl : redactUrl(connectionString);
  return { embedded, connectionString, url };
}

/**
 * The checks' side of the database: the two pools and their error windows, the Authorizer of
 * private channels and the Subscriptions of Postgres Changes; each stop goes to `cleanups`.
 */
async function startChecks(
  opts: DatabaseOptions,
  db: { connectionString: string; publication: string; log: (line: string) => void },
  cleanups: Cleanups,
) {
  const { connectionString, publication, log } = db;
  const sizes = poolSizes(opts);
  const checkTimeoutMs = opts.checkTimeoutMs ?? 15_000;
  const { authPool, subsPool } = await startPools(connectionString, sizes, checkTimeoutMs, log);
  cleanups.push(
    () => authPool.stop(),
    () => subsPool.stop(),
  );
  const { authErrors, subsErrors } = startErrorWindows(opts, sizes);
  cleanups.push(async () => {
    authErrors.stop();
    subsErrors.stop();
  });
  const queueTargetMs = opts.queueTargetMs ?? 5_000;
  const authorizer = new Authorizer({ pool: authPool, errors: authErrors, queueTargetMs });
  const registry = new SubscriptionRegistry();
  const subscriptions = new Subscriptions({
    pool: subsPool,
    errors: subsErrors,
    queueTargetMs,
    publication,
    registry,
    log,
  });
  return { sizes, authPool, authErrors, subsErrors, authorizer, registry, subscriptions };
}

export async function startDatabase(opts: DatabaseOptions): Promise<ServerDb> {
  const log = opts.log ?? (() => undefined);
  const publication = opts.publication ?? DEFAULT_PUBLICATION;
  const { embedded, connectionString, url } = await openPostgres(opts, log);
  const cleanups = new Cleanups(log);
  if (embedded) cleanups.push(() => embedded.stop());
  try {
    const t0 = performance.now();
    const runMigration = !embedded?.schemaMigrated || publication !== DEFAULT_PUBLICATION;
    await prepareSchema(connectionString, runMigration, publication, opts.slowPolicyMs);
    const migrateMs = Math.round(performance.now() - t0);
    const { sizes, ...checks } = await startChecks(
      opts,
      { connectionString, publication, log },
      cleanups,
    );
    const listeners: ((change: ChangeEvent) => void)[] = [];
    const poller = newPoller(opts, {
      connectionString,
      publication,
      registry: checks.registry,
      listeners,
    });
    await poller.start();
    cleanups.push(() => poller.stop());
    log(
      `tenant database ${url}: ${runMigration ? `migrated in ${migrateMs} ms` : 'schema from the template'}; db_pool ${sizes.dbPool}, subs_pool_size ${sizes.subsPoolSize}, slot ${poller.slotName}`,
    );
    let stopping: Promise<void> | null = null;
    return serverDbOf({
      ...checks,
      url,
      connectionString,
      publication,
      startup: embedded ? embedded.timings : null,
      poller,
      listeners,
      stop: () => (stopping ??= cleanups.run()),
    });
  } catch (e) {
    await cleanups.run();
    throw e;
  }
}

/** The Postgres Changes poller of the replication slot; every change goes to every listener. */
function newPoller(
  opts: DatabaseOptions,
  slot: {
    connectionString: string;
    publication: string;
    registry: SubscriptionRegistry;
    listeners: ((change: ChangeEvent) => void)[];
  },
): Poller {
  const { connectionString, publication, registry, listeners } = slot;
  return new Poller({
    connectionString,
    publication,
    registry,
    pollIntervalMs: opts.pollIntervalMs ?? 100,
    pollMaxChanges: opts.pollMaxChanges ?? 100,
    pollMaxRecordBytes: opts.pollMaxRecordBytes ?? 1_048_576,
    slotName: opts.slotName,
    log: opts.log ?? (() => undefined),
    onEvents: (events) => {
      for (const ev of events) for (const cb of listeners) cb(ev);
    },
  });
}
