/**
 * What connections and channels need from the server that owns them. A small seam so the
 * socket and channel state machines can be tested without HTTP.
 */
import type { ServerDb } from './db-types.js';
import type { ServerTimings } from './options.js';
import type { PresenceHub } from './presence.js';
import type { ChangesHub } from './postgres-changes.js';

/** Plain counters read by /metrics at scrape time; nothing on the hot path touches prom-client. */
export class Stats {
  connectionsOpened = 0;
  connectionsRefused = 0;
  joinsOk = 0;
  joinsError = 0;
  /** Inbound client broadcasts accepted (WebSocket and REST). */
  broadcastsIn = 0;
  /** Broadcast frames written to sockets. */
  deliveries = 0;
  presenceEvents = 0;
  changesDelivered = 0;
  malformedFrames = 0;
  channelShutdowns = 0;
  /** `access_token` pushes that carried a new token and were verified (§3.4). */
  tokenRefreshes = 0;
  slowConsumersKilled = 0;
  /**
   * Frames handed to sockets, and socket flushes (one writev each): their ratio is the write
   * coalescing.
   */
  framesWritten = 0;
  socketFlushes = 0;
}

export type DbState = 'disabled' | 'starting' | 'ready' | 'failed';

export interface ServerContext {
  readonly timings: ServerTimings;
  readonly maxBufferedBytes: number;
  readonly stats: Stats;
  readonly presence: PresenceHub;
  readonly changes: ChangesHub;
  /** The tenant database, when it started. */
  db: ServerDb | null;
  dbState: DbState;
  /** SIGTERM received: new joins get `RealtimeRestarting` (§3.2 check 1). */
  shuttingDown: boolean;
  log(line: string): void;
}
