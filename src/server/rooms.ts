/**
 * The seams between the server's rooms. Each room — a socket (`connection.ts`), a joined
 * channel (`channel.ts`), a tenant's PubSub groups and counters (`tenant.ts`), presence
 * (`presence.ts`) and Postgres Changes (`postgres-changes.ts`) — depends on the interfaces
 * here, never on another room's module, and implements its own. `server.ts` builds the real
 * ones and wires them together; so no room imports a room that imports it back.
 *
 * Types only: this file imports no room.
 */
import type { Frame } from '../protocol/frame-types.js';
import type { TokenVerifier } from './auth.js';
import type { AuthContext, ServerDb } from './db-types.js';
import type { JoinConfig } from './join-config.js';
import type { TenantConfig } from '../builtin/config.js';
import type { ServerTimings } from './options.js';
import type { Gate } from './pubsub.js';
import type { RateCounter } from './rate-counter.js';
import type { Stats } from './stats.js';
import type { Outgoing, UserPayload } from './wire.js';

/** A decoded client frame; kind-3 and kind-0 binary pushes keep their raw payload bytes. */
export interface Inbound extends Frame {
  user?: UserPayload;
  binary?: Uint8Array;
}

/** Where complete WebSocket frames are written (a socket). */
export interface FrameSink {
  write(frame: Buffer): void;
}

/** A socket as its tenant sees it: counted, swept for idleness, closed at shutdown. */
export interface Transport {
  readonly lastInboundMs: number;
  close(code: number, reason?: string): void;
}

/**
 * A joined channel as its tenant's fan-out sees it (docs/PROTOCOL.md §6.2: the delivery-time read
 * gates).
 */
export interface Subscriber {
  readonly v2: boolean;
  readonly topic: string;
  readonly closed: boolean;
  readonly readBroadcast: boolean;
  readonly readPresence: boolean;
  readonly conn: FrameSink;
  shutdown(message: string): void;
}

/** One tenant as its sockets, channels and hubs see it (implemented by tenant.ts). */
export interface TenantRoom {
  readonly id: string;
  readonly config: TenantConfig;
  readonly verifier: TokenVerifier;
  readonly joins: RateCounter;
  readonly events: RateCounter;
  readonly presence: RateCounter;
  readonly dbEvents: RateCounter;
  /** Transports that joined at least one channel, local to this process. */
  readonly users: Set<Transport>;
  readonly connections: Set<Transport>;
  /** Local users plus those the other workers report. */
  readonly userCount: number;
  subscribe(key: string, ch: Subscriber): void;
  unsubscribe(key: string, ch: Subscriber): void;
  members(key: string): ReadonlySet<Subscriber> | undefined;
  /** Fans out on every worker; returns the local recipients. */
  publish(key: string, out: Outgoing, from: Subscriber | null, gate: Gate): number;
  /** Fans out to this process's members only; returns the recipients. */
  deliverLocal(key: string, out: Outgoing, from: Subscriber | null, gate: Gate): number;
}

/**
 * A socket as the channels joined on it see it; `C` is the channel type it holds, so a channel
 * registers itself without this file naming the channel class.
 */
export interface ChannelSocket<C> extends FrameSink, Transport {
  readonly v2: boolean;
  readonly tenant: TenantRoom;
  readonly ctx: ServerContext;
  /** The socket-level token (`x-api-key` or `apikey`, docs/PROTOCOL.md §1.2). */
  readonly token: string;
  /** Upgrade request headers, passed to RLS as `request.headers` (docs/PROTOCOL.md §6.2). */
  readonly headers: Record<string, string>;
  readonly closed: boolean;
  readonly channels: Map<string, C>;
  /** Counted in the tenant's users (joined at least one channel, docs/PROTOCOL.md §8.2). */
  counted: boolean;
  /** `%Broadcast{event: "disconnect"}`: the transport stops (docs/PROTOCOL.md §2.5). */
  disconnect(): void;
}

/**
 * A channel as presence sees it: its tracked state, permissions and replies (docs/PROTOCOL.md §5).
 */
export interface PresenceChannel extends Subscriber {
  readonly key: string;
  readonly presenceKey: string;
  readonly tenant: TenantRoom;
  readonly cfg: Pick<JoinConfig, 'isPrivate'>;
  readPresence: boolean;
  presenceEnabled: boolean;
  /** presence.read was evaluated (at join, or by the first track on a private channel). */
  presenceReadChecked: boolean;
  writePresence: boolean | null;
  /**
   * The last tracked presence payload (a repeated identical track is a no-op,
   * docs/PROTOCOL.md §5.1).
   */
  trackedJson: string | null;
  authContext(): AuthContext;
  reply(ref: string | null, status: 'ok' | 'error', response: unknown): void;
  takePresenceCall(nowMs: number): boolean;
  syncPresence(): void;
}

/**
 * One `postgres_changes` binding of a join, with the subscription made for it
 * (docs/PROTOCOL.md §7).
 */
export interface PgBinding {
  id: number;
  subscriptionId: string;
  raw: Record<string, unknown>;
  event: string;
  schema: string;
  table: string;
  filter?: string;
}

/**
 * A channel as Postgres Changes sees it: its bindings, claims and system replies
 * (docs/PROTOCOL.md §7).
 */
export interface ChangesChannel {
  readonly v2: boolean;
  readonly topic: string;
  readonly closed: boolean;
  readonly conn: FrameSink;
  readonly tenant: Pick<TenantRoom, 'dbEvents'>;
  readonly cfg: Pick<JoinConfig, 'newApi'>;
  readonly pg: readonly PgBinding[];
  readonly claims: Record<string, unknown>;
  pushSystem(extension: string, status: 'ok' | 'error', message: string): void;
  schedulePgRetry(ms: number, fn: () => void): void;
}

/** Presence as a channel calls it (presence.ts). */
export interface PresenceRoom {
  /**
   * `limit_presence_event`: refused while over the limit, otherwise counted (docs/PROTOCOL.md §5.1,
   * §8.2).
   */
  allowEvent(tenant: TenantRoom): boolean;
  /** The full state of a topic, grouped by key. */
  state(tenant: TenantRoom, key: string): Record<string, { metas: Record<string, unknown>[] }>;
  /** A `presence` event from a channel (track, untrack). */
  handle(ch: PresenceChannel, f: Inbound): Promise<void>;
  /** A channel ended: its presence leaves. */
  leave(ch: PresenceChannel): void;
}

/** Postgres Changes as a channel calls it (postgres-changes.ts). */
export interface ChangesRoom {
  add(ch: ChangesChannel): void;
  resubscribe(ch: ChangesChannel): void;
  remove(ch: ChangesChannel): void;
}

export type DbState = 'disabled' | 'starting' | 'ready' | 'failed';

/**
 * What connections and channels need from the server that owns them. A small seam so the
 * socket and channel state machines can be tested without HTTP.
 */
export interface ServerContext {
  readonly timings: ServerTimings;
  readonly maxBufferedBytes: number;
  readonly stats: Stats;
  readonly presence: PresenceRoom;
  readonly changes: ChangesRoom;
  /** The tenant database, when it started. */
  db: ServerDb | null;
  dbState: DbState;
  /** SIGTERM received: new joins get `RealtimeRestarting` (docs/PROTOCOL.md §3.2 check 1). */
  shuttingDown: boolean;
  log(line: string): void;
}
