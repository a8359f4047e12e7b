/**
 * What the primary and the workers of `rtcap serve --workers N` say to each other over the
 * cluster IPC channel (structured clone, `serialization: 'advanced'`), and the spec a worker
 * starts from. Plain data only: nothing here may hold a function.
 */
import type { ChangeEvent, DbStats } from '../db-types.js';
import type { MetricsJson } from '../metrics.js';
import type { ServerOptions, ServerTimings } from '../options.js';
import type { PresenceOp } from '../presence.js';
import type { Gate } from '../pubsub.js';
import type { OutBody } from '../wire.js';

/** The environment variable that carries a worker's spec (JSON) into its process. */
export const WORKER_SPEC_ENV = 'RTCAP_SERVE_WORKER';

/** Options a worker needs; plain data (no functions) so they cross the environment. */
export interface WorkerSpec {
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

/** The per-tenant rate counters whose counts workers forward and whose state the primary owns. */
export type CounterName = 'joins' | 'events' | 'presence' | 'dbEvents';
/** Their order in the `counts` and `rates` arrays. */
export const COUNTERS: readonly CounterName[] = ['joins', 'events', 'presence', 'dbEvents'];

/** A broadcast (or presence event) for the members held by the other workers. */
export interface FanoutMessage {
  t: 'fanout';
  tenantId: string;
  key: string;
  topic: string;
  event: string;
  body: OutBody;
  gate: Gate;
}

export type DbMethod = 'authorizeRead' | 'authorizeWrite' | 'subscribe' | 'unsubscribe';

/** A worker's call into the primary's database. */
export interface DbCall {
  t: 'db';
  id: number;
  method: DbMethod;
  args: unknown[];
}

/** Counts since the last flush per tenant (in COUNTERS order) and its connected users. */
export interface CountsMessage {
  t: 'counts';
  tenants: Record<string, { c: number[]; users: number }>;
}

/** Per tenant the counters' [tripped, value] (in COUNTERS order) and the other workers' users. */
export interface RatesMessage {
  t: 'rates';
  tenants: Record<string, { s: [boolean, number][]; remoteUsers: number }>;
  db: DbStats | null;
}

export type DbReply =
  | { t: 'dbReply'; id: number; ok: true; value: unknown }
  | {
      t: 'dbReply';
      id: number;
      ok: false;
      error: { message: string; code?: string; retryable?: boolean };
    };

export type ToPrimary =
  | { t: 'ready'; port: number }
  | FanoutMessage
  | { t: 'presence'; op: PresenceOp }
  | CountsMessage
  | DbCall
  | { t: 'metrics'; id: number }
  | { t: 'metricsJson'; id: number; json: MetricsJson }
  /** Near its open-file limit: may it stop accepting? (accept-gate.ts) */
  | { t: 'acceptFull' }
  | { t: 'acceptResumed' };

export type ToWorker =
  | FanoutMessage
  | { t: 'presence'; op: PresenceOp }
  | { t: 'presenceDrop'; node: number }
  | RatesMessage
  | DbReply
  | { t: 'change'; change: ChangeEvent }
  | { t: 'metricsJson?'; id: number }
  | { t: 'metricsText'; id: number; text: string }
  /** The answer to acceptFull: false while no other worker accepts (the last one must). */
  | { t: 'acceptPause'; ok: boolean }
  | { t: 'shutdown' };
