/**
 * The seam between the realtime server and its tenant database (`src/server/db/`, built
 * separately). The server codes against this interface only; `loadDatabase` imports the
 * implementation at run time so the server also runs where it is absent (`--no-database`).
 */

export interface AuthContext {
  role: string;
  claims: Record<string, unknown>;
  subtopic: string;
  headers: Record<string, string>;
}

export interface ChangeData {
  schema: string;
  table: string;
  commit_timestamp: string;
  type: 'INSERT' | 'UPDATE' | 'DELETE';
  columns: { name: string; type: string }[];
  record?: Record<string, unknown>;
  old_record?: Record<string, unknown>;
  errors: string[] | null;
}

export interface ChangeEvent {
  data: ChangeData;
  subscriptionIds: string[];
}

export interface SubscriptionRequest {
  subscriptionId: string;
  claims: Record<string, unknown>;
  binding: { event: string; schema: string; table: string; filter?: string };
}

export interface DbStats {
  authPoolWaiting: number;
  authErrors: number;
  pollerLagMs: number | null;
  lastPollMs: number | null;
}

export interface ServerDb {
  /** Password-redacted. */
  url: string;
  /** Unredacted, for rtcap's own loaders; never logged. */
  connectionString(): string;
  authorizeRead(ctx: AuthContext, opts: { presence: boolean }): Promise<{ broadcast: boolean; presence: boolean }>;
  authorizeWrite(ctx: AuthContext, extension: 'broadcast' | 'presence'): Promise<boolean>;
  subscribe(sub: SubscriptionRequest): Promise<void>;
  unsubscribe(subscriptionIds: string[]): Promise<void>;
  onChange(cb: (change: ChangeEvent) => void): void;
  stats(): DbStats;
  stop(): Promise<void>;
}

/** Errors of authorizeRead/authorizeWrite (`code`) and subscribe (`message`, `retryable`). */
export function errorCode(e: unknown): string | undefined {
  return e && typeof e === 'object' && 'code' in e && typeof (e as { code: unknown }).code === 'string' ? (e as { code: string }).code : undefined;
}

export function isRetryable(e: unknown): boolean {
  return !!(e && typeof e === 'object' && (e as { retryable?: unknown }).retryable === true);
}

export interface StartDatabaseOptions {
  databaseUrl?: string;
  /** Authorization pool size (`db_pool`, §6.3). */
  dbPool: number;
  /** Subscription-insert pool (`subs_pool_size`, §6.3). */
  subsPoolSize: number;
  /** Window of the authorization-error counter (§6.4: 30 × 1 s). */
  authErrorWindowMs?: number;
  log?: (line: string) => void;
  [key: string]: unknown;
}

/** The database options a server with these tenants and timings needs: pools sized by the first tenant. */
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

/** Starts the tenant database through `src/server/db/index.ts`. */
export async function loadDatabase(opts: StartDatabaseOptions): Promise<ServerDb> {
  // A variable specifier keeps the type checker from requiring the module at build time.
  const spec = './db/index.js';
  const mod = (await import(spec)) as { startDatabase?: (o: StartDatabaseOptions) => Promise<ServerDb> };
  if (typeof mod.startDatabase !== 'function') throw new Error('src/server/db does not export startDatabase');
  return mod.startDatabase(opts);
}
