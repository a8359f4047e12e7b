/**
 * The seam between the realtime server and its tenant database (`src/server/db/`): the
 * server codes against the ServerDb interface only and starts the database through
 * `loadDatabase` unless `--no-database`.
 */

// The types are the database module's own (one definition, src/server/db/server-db.ts); the
// server needs only part of its interface, which a cluster worker's proxy also provides.
export type { AuthContext, ChangeData, ChangeEvent, SubscriptionRequest } from './db/index.js';
import { startDatabase } from './db/index.js';
import type {
  DatabaseOptions,
  DbStats as FullDbStats,
  ServerDb as FullServerDb,
} from './db/server-db.js';

export type DbStats = Pick<
  FullDbStats,
  'authPoolWaiting' | 'authErrors' | 'pollerLagMs' | 'lastPollMs'
>;
export type ServerDb = Pick<
  FullServerDb,
  | 'url'
  | 'connectionString'
  | 'authorizeRead'
  | 'authorizeWrite'
  | 'subscribe'
  | 'unsubscribe'
  | 'onChange'
  | 'stop'
> & {
  stats(): DbStats;
};

/** Errors of authorizeRead/authorizeWrite (`code`) and subscribe (`message`, `retryable`). */
export function errorCode(e: unknown): string | undefined {
  return e &&
    typeof e === 'object' &&
    'code' in e &&
    typeof (e as { code: unknown }).code === 'string'
    ? (e as { code: string }).code
    : undefined;
}

export function isRetryable(e: unknown): boolean {
  return !!(e && typeof e === 'object' && (e as { retryable?: unknown }).retryable === true);
}

export interface StartDatabaseOptions {
  databaseUrl?: string;
  /** Authorization pool size (`db_pool`, docs/PROTOCOL.md §6.3). */
  dbPool: number;
  /** Subscription-insert pool (`subs_pool_size`, docs/PROTOCOL.md §6.3). */
  subsPoolSize: number;
  /** Window of the authorization-error counter (docs/PROTOCOL.md §6.4: 30 × 1 s). */
  authErrorWindowMs?: number;
  log?: (line: string) => void;
  [key: string]: unknown;
}

/**
 * The database options a server with these tenants and timings needs: pools sized by the first
 * tenant.
 */
export function databaseOptions(
  tenant: { db_pool: number; subs_pool_size: number },
  timings: { authErrorTickMs: number; authErrorBuckets: number },
  databaseUrl: string | undefined,
  log: (line: string) => void,
): StartDatabaseOptions {
  return {
    ...(databaseUrl ? { databaseUrl } : {}),
    dbPool: tenant.db_pool,
    subsPoolSize: tenant.subs_pool_size,
    authErrorWindowMs: timings.authErrorTickMs * timings.authErrorBuckets,
    log,
  };
}

/** Starts the tenant database (src/server/db/index.ts). */
export async function loadDatabase(opts: StartDatabaseOptions): Promise<ServerDb> {
  return startDatabase(opts as DatabaseOptions);
}
