/**
 * One joined `realtime:*` channel on one socket: Realtime's `RealtimeChannel` (docs/PROTOCOL.md
 * §3–§7). The join's checks (docs/PROTOCOL.md §3.2) are channel-join.ts; events are handled as
 * `handle_in` does, a broadcast by broadcast.ts; a shutdown pushes a `system` error and then
 * `phx_close` (docs/PROTOCOL.md §3.5).
 *
 * Async work (JWT verification, RLS checks) is serialised per channel, as a channel process
 * handles one message at a time; the public broadcast path stays synchronous.
 */
import { randomUUID } from 'node:crypto';
import { EV, REALTIME_TOPIC_PREFIX, REASON } from '../protocol/constants.js';
import { shutdownMessage, type TokenResult } from './auth.js';
import type { AuthContext } from './db-types.js';
import { broadcast, privateBroadcast, type BroadcastChannel } from './broadcast.js';
import type { JoinConfig } from './join-config.js';
import { flat, intern } from './intern.js';
import { pubsubKey } from './pubsub.js';
import { PresenceWindow } from './presence-window.js';
import type {
  ChangesChannel,
  ChannelSocket,
  Inbound,
  PgBinding,
  PresenceChannel,
} from './rooms.js';
import { closeFrame, pushFrame, replyFrame } from './wire.js';

/**
 * The join timer re-checks the token every min(5 min, exp - now) (docs/PROTOCOL.md §1.5 last
 * paragraph).
 */
const CONFIRM_TOKEN_MAX_MS = 5 * 60_000;

/** The socket a channel is joined on. */
export type ChannelConn = ChannelSocket<Channel>;

export class Channel implements BroadcastChannel, PresenceChannel, ChangesChannel {
  readonly v2: boolean;
  readonly subtopic: string;
  readonly key: string;
  closed = false;
  /** Delivery-time read gates (docs/PROTOCOL.md §6.2); always true on public channels. */
  readBroadcast = true;
  readPresence = true;
  /**
   * Lazily checked write permissions of a private channel (docs/PROTOCOL.md §6.2), cached for its
   * lifetime.
   */
  writeBroadcast: boolean | null = null;
  writePresence: boolean | null = null;
  presenceEnabled: boolean;
  /** The join's presence key, or a UUID made when presence first needs one. */
  private ownPresenceKey: string | null;
  /**
   * The last tracked presence payload (a repeated identical track is a no-op,
   * docs/PROTOCOL.md §5.1).
   */
  trackedJson: string | null = null;
  pg: PgBinding[] = [];
  claims: Record<string, unknown> = {};
  private accessToken: string;
  private confirmTimer: NodeJS.Timeout | null = null;
  private pgRetryTimer: NodeJS.Timeout | null = null;
  private readonly presenceWindow = new PresenceWindow();
  /** Tail of this channel's async work queue. */
  private work: Promise<void> | null = null;

  readonly topic: string;
  readonly joinRef: string | null;
  readonly cfg: JoinConfig;

  /**
   * Made by joinChannel (channel-join.ts) for a join whose checks have passed so far: its topic,
   * join ref, config and access token.
   */
  constructor(
    readonly conn: ChannelConn,
    join: { topic: string; joinRef: string | null; cfg: JoinConfig; token: string },
  ) {
    const { topic, cfg, token } = join;
    this.topic = topic;
    this.joinRef = join.joinRef;
    this.cfg = cfg;
    this.v2 = conn.v2;
    this.subtopic = topic.slice(REALTIME_TOPIC_PREFIX.length);
    this.key = intern(pubsubKey(conn.tenant.id, this.subtopic, cfg.isPrivate));
    this.accessToken = token;
    this.presenceEnabled = cfg.presenceEnabled || conn.tenant.config.presence_enabled;
    this.ownPresenceKey = cfg.presenceKey;
  }

  /**
   * Made on first use, not at join: most channels never track presence, and randomUUID's string
   * is a chain of ~16 concatenations (about 0.5 KB per channel until flattened).
   */
  get presenceKey(): string {
    return (this.ownPresenceKey ??= flat(randomUUID()));
  }

  get tenant() {
    return this.conn.tenant;
  }

  private get ctx() {
    return this.conn.ctx;
  }

  /** presence.read was evaluated (at join, or by the first track on a private channel). */
  presenceReadChecked = false;

  authContext(): AuthContext {
    return {
      role: this.claims.role as string, // verified a string
      claims: this.claims,
      subtopic: this.subtopic,
      headers: this.conn.headers,
    };
  }

  // ------------------------------------------------------------------ inbound events

  handleIn(f: Inbound): void {
    switch (f.event) {
      case EV.broadcast:
        if (this.cfg.isPrivate && this.writeBroadcast === null)
          return this.enqueue(() => privateBroadcast(this, this.ctx, f));
        if (this.work) return this.enqueue(async () => broadcast(this, this.ctx, f));
        return broadcast(this, this.ctx, f);
      case EV.presence:
        return this.enqueue(() => this.ctx.presence.handle(this, f));
      case EV.accessToken:
        return this.enqueue(() => this.refreshToken(f.payload));
      default:
        // `handle_in(type, ...)`: counted as an event, no reply (docs/PROTOCOL.md §8.2).
        this.tenant.events.add(1);
    }
  }

  private enqueue(task: () => Promise<void> | void): void {
    const run = async () => {
      if (this.closed) return;
      try {
        await task();
      } catch (e) {
        this.ctx.log(`channel ${this.topic}: ${(e as Error).stack ?? e}`);
        this.crash();
      }
    };
    const next = (this.work ?? Promise.resolve()).then(run);
    this.work = next;
    void next.then(() => {
      if (this.work === next) this.work = null;
    });
  }

  /** docs/PROTOCOL.md §3.4: no reply; an invalid token or revoked read closes the channel. */
  private async refreshToken(payload: unknown): Promise<void> {
    const token =
      payload && typeof payload === 'object'
        ? (payload as Record<string, unknown>).access_token
        : undefined;
    if (typeof token !== 'string' || token.startsWith('sb_') || token === this.accessToken) return;
    this.accessToken = token;
    const verified = await this.tenant.verifier.verify(token);
    if (!verified.ok) return this.shutdown(shutdownMessage(verified));
    this.ctx.stats.tokenRefreshes++;
    this.claims = verified.claims;
    if (this.cfg.isPrivate) {
      const db = this.ctx.db;
      if (!db) return this.shutdown(REASON.dbUnavailable);
      const before = { broadcast: this.readBroadcast, presence: this.readPresence };
      try {
        const read = await db.authorizeRead(this.authContext(), { presence: this.presenceEnabled });
        this.readBroadcast = read.broadcast;
        if (this.presenceEnabled) this.readPresence = read.presence;
        // Write permissions are re-evaluated lazily under the new claims.
        this.writeBroadcast = null;
        this.writePresence = null;
        if (
          (before.broadcast && !read.broadcast) ||
          (this.presenceEnabled && before.presence && !read.presence)
        ) {
          return this.shutdown(REASON.noLongerPermitted(this.subtopic));
        }
      } catch {
        return this.shutdown(REASON.dbUnavailable);
      }
    }
    if (this.pg.length > 0) this.ctx.changes.resubscribe(this);
    this.scheduleConfirm(verified.expS);
  }

  /** Re-checks the token at min(5 min, its expiry) (docs/PROTOCOL.md §1.5). */
  scheduleConfirm(expS: number): void {
    if (this.confirmTimer) clearTimeout(this.confirmTimer);
    const inMs = Math.max(0, Math.min(CONFIRM_TOKEN_MAX_MS, expS * 1000 - Date.now()));
    this.confirmTimer = setTimeout(() => this.enqueue(() => this.confirmToken()), inMs);
    this.confirmTimer.unref();
  }

  private async confirmToken(): Promise<void> {
    const r: TokenResult = await this.tenant.verifier.verify(this.accessToken);
    if (!r.ok) return this.shutdown(shutdownMessage(r));
    this.claims = r.claims;
    this.scheduleConfirm(r.expS);
  }

  // ------------------------------------------------------------------ presence hooks

  /**
   * Pushes `presence_state` unless the tenant presence rate is over its limit
   * (docs/PROTOCOL.md §5.2, §8.2).
   */
  syncPresence(): void {
    if (this.closed || !this.readPresence) return;
    if (!this.ctx.presence.allowEvent(this.tenant))
      return this.shutdown(REASON.tooManyPresenceMessages);
    this.push(EV.presenceState, this.ctx.presence.state(this.tenant, this.key));
  }

  /**
   * The per-channel client presence window (`limit_client_presence_event`, docs/PROTOCOL.md §5.1).
   */
  takePresenceCall(nowMs: number): boolean {
    const config = this.tenant.config;
    const max = config.max_client_presence_events_per_window;
    return max === null || this.presenceWindow.take(nowMs, max, config.client_presence_window_ms);
  }

  // ------------------------------------------------------------------ postgres changes hooks

  schedulePgRetry(ms: number, fn: () => void): void {
    if (this.pgRetryTimer) clearTimeout(this.pgRetryTimer);
    this.pgRetryTimer = setTimeout(fn, ms);
    this.pgRetryTimer.unref();
  }

  // ------------------------------------------------------------------ output

  reply(ref: string | null, status: 'ok' | 'error', response: unknown): void {
    this.conn.write(replyFrame(this, ref, status, response));
  }

  push(event: string, payload: unknown): void {
    if (!this.closed) this.conn.write(pushFrame(this, event, payload));
  }

  /** `system` messages carry the subtopic as `channel` (docs/PROTOCOL.md §3.3). */
  pushSystem(extension: string, status: 'ok' | 'error', message: string): void {
    this.push(EV.system, { extension, status, message, channel: this.subtopic });
  }

  // ------------------------------------------------------------------ endings

  /**
   * `shutdown_response`: system error, then the channel stops normally → phx_close
   * (docs/PROTOCOL.md §3.5).
   */
  shutdown(message: string): void {
    if (this.closed) return;
    this.ctx.stats.channelShutdowns++;
    this.pushSystem('system', 'error', message);
    this.close();
  }

  /** phx_leave: ok reply, then phx_close with ref = join_ref (docs/PROTOCOL.md §2.5). */
  leave(ref: string | null): void {
    if (this.closed) return;
    this.reply(ref, 'ok', {});
    this.close();
  }

  /** Ends the channel with phx_close (leave, duplicate join, shutdown). */
  close(): void {
    if (this.closed) return;
    this.conn.write(closeFrame(this.v2, this.joinRef, this.topic));
    this.teardown();
  }

  /** An abnormal exit: phx_error with `channel_crash` (docs/PROTOCOL.md §2.5). */
  crash(): void {
    if (this.closed) return;
    this.conn.write(pushFrame(this, EV.error, { reason: REASON.channelCrash }));
    this.teardown();
  }

  /** Releases everything without writing (also used when the socket is gone). */
  teardown(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.confirmTimer) clearTimeout(this.confirmTimer);
    if (this.pgRetryTimer) clearTimeout(this.pgRetryTimer);
    this.tenant.unsubscribe(this.key, this);
    if (this.conn.channels.get(this.topic) === this) this.conn.channels.delete(this.topic);
    this.ctx.presence.leave(this);
    if (this.pg.length > 0) this.ctx.changes.remove(this);
  }
}
