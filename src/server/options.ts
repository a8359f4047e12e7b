/**
 * Options of the built-in server's process: port, TLS, the parsed tenant config
 * (builtin/config.ts), its database and its timing knobs.
 */
import {
  CHANNEL_ERROR_BACKOFF_MS,
  CONNECT_ERROR_BACKOFF_MS,
  SERVER_IDLE_TIMEOUT_MS,
} from '../protocol/constants.js';
import type { ServerConfigFile } from '../builtin/config.js';
import type { ServerDb } from './db-types.js';

/** Timing knobs; tests shrink them so a quota's window passes in a second. */
export interface ServerTimings {
  /** Phoenix transport idle timeout (docs/PROTOCOL.md §1.2). */
  idleTimeoutMs: number;
  /** Sleep before a refused upgrade (docs/PROTOCOL.md §1.5). */
  connectErrorBackoffMs: number;
  /** Sleep before an error join reply (docs/PROTOCOL.md §3.2). */
  channelErrorBackoffMs: number;
  /** RateCounter tick; Supabase: 5 s with 12 buckets (docs/PROTOCOL.md §8.1). */
  rateTickMs: number;
  rateBuckets: number;
  /** Authorization-error counter: 1 s tick, 30 buckets, sum (docs/PROTOCOL.md §6.4). */
  authErrorTickMs: number;
  authErrorBuckets: number;
  /**
   * Retry delay after a retryable Postgres Changes subscription error (docs/PROTOCOL.md §3.3:
   * random 5–10 s).
   */
  pgRetryMinMs: number;
  pgRetryMaxMs: number;
}

export const DEFAULT_TIMINGS: ServerTimings = {
  idleTimeoutMs: SERVER_IDLE_TIMEOUT_MS,
  connectErrorBackoffMs: CONNECT_ERROR_BACKOFF_MS,
  channelErrorBackoffMs: CHANNEL_ERROR_BACKOFF_MS,
  rateTickMs: 5_000,
  rateBuckets: 12,
  authErrorTickMs: 1_000,
  authErrorBuckets: 30,
  pgRetryMinMs: 5_000,
  pgRetryMaxMs: 10_000,
};

export interface DatabaseOptions {
  /** Use this Postgres instead of starting an embedded one. */
  databaseUrl?: string;
}

export interface ServerOptions {
  port?: number;
  host?: string;
  /** HS256 secret of the default tenant and of tenants without their own. */
  jwtSecret?: string;
  /** Serve wss:// instead of ws://: files of the PEM certificate chain and its private key. */
  tls?: { certFile: string; keyFile: string };
  /** Parsed tenant config; quota flags are merged into it by the CLI. */
  config?: ServerConfigFile;
  timings?: Partial<ServerTimings>;
  /**
   * `false` runs without Postgres (private channels and Postgres Changes then fail as
   * docs/PROTOCOL.md §3.2 documents).
   */
  database?: false | DatabaseOptions;
  /** A started database to use (tests); the server does not stop it. */
  db?: ServerDb;
  /**
   * Bytes queued on one socket after which it is killed, like a transport over its max heap
   * (docs/PROTOCOL.md §1.2).
   */
  maxBufferedBytes?: number;
  /** Diagnostics sink; default: stderr. */
  log?: (line: string) => void;
}
