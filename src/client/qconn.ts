/**
 * A connection for `rtcap quotas`, on client/connection.ts: awaitable connect, join, leave
 * and acked pushes, and callbacks for what the quota checks count (broadcasts and presence
 * frames received) and for the server's refusals, verbatim. The run engine's workers are
 * built for thousands of identical members on a schedule; a quota check needs a handful of
 * connections whose every refusal is seen with its time and reason, which is this.
 */
import { Connection, type ConnectionHooks } from './connection.js';
import type { TlsOptions } from './socket-open.js';
import { TokenSource } from './auth.js';
import { nowMs } from '../measure/clock.js';
import { EV, type Vsn } from '../protocol/constants.js';
import type { Frame } from '../protocol/frame-types.js';
import type { Stamp } from '../protocol/stamp.js';
import { quotedEvent } from '../protocol/frame-event.js';

export interface QuotaTarget {
  /** Socket URL with vsn and params; the token is added per connection. */
  socketUrl: string;
  headers: Record<string, string>;
  vsn: Vsn;
  tokens: TokenSource;
  apikeyIn: 'query' | 'header';
  /** Upgrade and join replies are awaited this long (the target's error backoff included). */
  replyTimeoutMs: number;
  /** Every join's outcome, from any check: the join-rate onset counts joins made by all of them. */
  onJoin?: (o: JoinOutcome) => void;
  /** wss:// trust and client certificate (target.tls). */
  tls?: TlsOptions;
  /** The token a join carries as access_token, when it is not the socket's (a user's own). */
  joinTokens?: TokenSource;
  /**
   * Phoenix dialect: the event a delivery comes as (target.receive_event); a stamped frame of
   * another event reaches onOtherFrame, not onStamp, as a run's connection would not count it.
   */
  deliveryEvent?: string;
}

export interface QConnEvents {
  onBroadcast?(c: QConn, topic: string, atMs: number): void;
  /**
   * A frame carrying rtcap's bench stamp, found in its bytes as a run finds it (protocol/stamp),
   * whatever its event; `stamp` is reused for the next frame: read it at once.
   */
  onStamp?(c: QConn, stamp: Stamp, atMs: number): void;
  onPresenceFrame?(c: QConn, kind: 'diff' | 'state', topic: string, atMs: number): void;
  /** A `system` error pushed on a channel (a shutdown reason), before its phx_close. */
  onChannelError?(c: QConn, reason: string, atMs: number): void;
  /** The server closed a joined channel; rejoin if needed. */
  onChannelClosed?(c: QConn, topic: string, atMs: number): void;
  onSocketClosed?(c: QConn, reason: string | null): void;
  /** Any other frame (system messages, postgres_changes, foreign events). */
  onOtherFrame?(c: QConn, f: Frame, atMs: number): void;
}

export type JoinOutcome =
  { ok: true; sentAtMs: number } | { ok: false; reason: string; sentAtMs: number };
export type OpenOutcome =
  { ok: true; conn: QConn } | { ok: false; reason: string; sentAtMs: number };

const SYSTEM_ERROR = 'system error: ';

export class QConn {
  readonly conn: Connection;
  private openWait: ((o: OpenOutcome) => void) | null = null;
  private readonly joinWaits = new Map<
    string,
    { resolve: (o: JoinOutcome) => void; sentAtMs: number; timer: NodeJS.Timeout }
  >();
  private readonly ackWaits = new Map<
    string,
    { resolve: (o: { ok: boolean; reason: string | null }) => void; timer: NodeJS.Timeout }
  >();
  /** Topics joined and not closed. */
  readonly joined = new Set<string>();
  closed = false;
  private tagSeq = 0;
  private socketReason: string | null = null;

  private constructor(
    readonly index: number,
    private readonly target: QuotaTarget,
    private readonly events: QConnEvents,
  ) {
    this.conn = new Connection(index, target.vsn, this.hooks());
  }

  /**
   * Connects; resolves with the connection or the verbatim refusal (e.g. "upgrade refused: HTTP 429
   * ...").
   */
  static async open(
    index: number,
    target: QuotaTarget,
    events: QConnEvents = {},
  ): Promise<OpenOutcome> {
    const q = new QConn(index, target, events);
    const token = await target.tokens.tokenFor(index);
    let url = target.socketUrl;
    const headers = { ...target.headers };
    if (token && target.apikeyIn === 'header') headers['x-api-key'] = token;
    else if (token) url += (url.includes('?') ? '&' : '?') + 'apikey=' + encodeURIComponent(token);
    const sentAtMs = nowMs();
    return new Promise<OpenOutcome>((resolve) => {
      const timer = setTimeout(() => {
        q.openWait = null;
        q.conn.terminate();
        resolve({
          ok: false,
          reason: `connect timeout: no answer within ${target.replyTimeoutMs} ms`,
          sentAtMs,
        });
      }, target.replyTimeoutMs);
      q.openWait = (o) => {
        clearTimeout(timer);
        q.openWait = null;
        resolve(o.ok ? o : { ...o, sentAtMs });
      };
      q.conn.connect({
        url,
        headers,
        handshakeTimeoutMs: target.replyTimeoutMs,
        tls: target.tls,
        ...(target.deliveryEvent ? { deliveryEvent: quotedEvent(target.deliveryEvent) } : {}),
      });
    });
  }

  private hooks(): ConnectionHooks {
    return {
      onStamp: (_c, stamp, recvMs) => this.events.onStamp?.(this, stamp, recvMs),
      onOpen: () => this.openWait?.({ ok: true, conn: this }),
      onJoined: (_c, topic) => this.joinReplied(topic),
      onError: (_c, e, phase) => this.failed(e.reason, phase),
      onClosed: (_c, byUs) => this.socketGone(byUs),
      onAck: (_c, ok, reason, _latency, tag) => {
        if (tag === undefined) return;
        const w = this.ackWaits.get(tag);
        if (!w) return;
        clearTimeout(w.timer);
        this.ackWaits.delete(tag);
        w.resolve({ ok, reason });
      },
      onFrame: (_c, f) => {
        const at = nowMs();
        if (f.event === EV.broadcast) this.events.onBroadcast?.(this, f.topic, at);
        else if (f.event === EV.presenceDiff)
          this.events.onPresenceFrame?.(this, 'diff', f.topic, at);
        else if (f.event === EV.presenceState)
          this.events.onPresenceFrame?.(this, 'state', f.topic, at);
        else this.events.onOtherFrame?.(this, f, at);
      },
    };
  }

  /** The server's ok to a join: the topic is joined and its waiter answered. */
  private joinReplied(topic: string): void {
    this.joined.add(topic);
    const w = this.joinWaits.get(topic);
    if (w) {
      clearTimeout(w.timer);
      this.joinWaits.delete(topic);
      w.resolve({ ok: true, sentAtMs: w.sentAtMs });
    }
  }

  /** A failure the connection reports: the waiter or event it ends, with its verbatim reason. */
  private failed(reason: string, phase: Parameters<ConnectionHooks['onError']>[2]): void {
    const at = nowMs();
    if (phase === 'socket' || phase === 'heartbeat') this.socketReason = reason;
    if (phase === 'connect') {
      this.openWait?.({ ok: false, reason, sentAtMs: 0 });
      return;
    }
    if (phase === 'join') {
      // connection.ts drops the failed topic from its joins before telling us: find it.
      for (const [topic, w] of this.joinWaits) {
        if (!this.conn.joins.has(topic)) {
          clearTimeout(w.timer);
          this.joinWaits.delete(topic);
          w.resolve({ ok: false, reason, sentAtMs: w.sentAtMs });
        }
      }
      return;
    }
    if (phase === 'channel') {
      if (reason.startsWith(SYSTEM_ERROR)) {
        this.events.onChannelError?.(this, reason.slice(SYSTEM_ERROR.length), at);
        return;
      }
      for (const topic of [...this.joined]) {
        if (!this.conn.joins.has(topic)) {
          this.joined.delete(topic);
          this.events.onChannelClosed?.(this, topic, at);
        }
      }
    }
  }

  /** The socket is gone: every waiter is answered, and the owner told unless we closed it. */
  private socketGone(byUs: boolean): void {
    this.closed = true;
    this.openWait?.({ ok: false, reason: 'socket closed before it opened', sentAtMs: 0 });
    for (const [, w] of this.joinWaits) {
      clearTimeout(w.timer);
      w.resolve({
        ok: false,
        reason: 'socket closed before the join reply',
        sentAtMs: w.sentAtMs,
      });
    }
    this.joinWaits.clear();
    for (const [, w] of this.ackWaits) {
      clearTimeout(w.timer);
      w.resolve({ ok: false, reason: 'socket closed before the reply' });
    }
    this.ackWaits.clear();
    this.joined.clear();
    if (!byUs) this.events.onSocketClosed?.(this, this.socketReason);
  }

  /**
   * Joins `topic` with a Supabase join config; resolves with the reply (or the close that ended
   * it).
   */
  join(topic: string, config: Record<string, unknown>): Promise<JoinOutcome> {
    return this.joinOnce(topic, config, null).then((o) => {
      this.target.onJoin?.(o);
      return o;
    });
  }

  /** Joins `topic` with `payload` as it stands (a Phoenix app's own join payload). */
  joinRaw(topic: string, payload: Record<string, unknown>): Promise<JoinOutcome> {
    return this.joinOnce(topic, {}, payload);
  }

  private joinOnce(
    topic: string,
    config: Record<string, unknown>,
    raw: Record<string, unknown> | null,
  ): Promise<JoinOutcome> {
    const sentAtMs = nowMs();
    if (this.closed) return Promise.resolve({ ok: false, reason: 'socket closed', sentAtMs });
    return (async () => {
      const token = await (this.target.joinTokens ?? this.target.tokens).tokenFor(this.index);
      return new Promise<JoinOutcome>((resolve) => {
        const timer = setTimeout(() => {
          this.joinWaits.delete(topic);
          resolve({
            ok: false,
            reason: `join timeout: no reply within ${this.target.replyTimeoutMs} ms`,
            sentAtMs,
          });
        }, this.target.replyTimeoutMs);
        this.joinWaits.set(topic, { resolve, sentAtMs, timer });
        const payload: Record<string, unknown> = {
          config: {
            broadcast: { ack: false, self: false },
            presence: { key: '', enabled: false },
            postgres_changes: [],
            private: false,
            ...config,
          },
        };
        if (token) payload.access_token = token;
        this.conn.join(topic, raw ?? payload);
      });
    })();
  }

  leave(topic: string): void {
    this.joined.delete(topic);
    this.conn.leave(topic);
  }

  /** A push; with `ack` the reply is awaited (ok, or the verbatim error reason). */
  push(
    topic: string,
    event: string,
    payload: unknown,
    ack: true,
  ): Promise<{ ok: boolean; reason: string | null }>;
  push(topic: string, event: string, payload: unknown, ack: false): boolean;
  push(
    topic: string,
    event: string,
    payload: unknown,
    ack: boolean,
  ): Promise<{ ok: boolean; reason: string | null }> | boolean {
    if (!ack) return this.conn.push(topic, event, payload, false);
    const tag = String(++this.tagSeq);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.ackWaits.delete(tag);
        resolve({ ok: false, reason: `no reply within ${this.target.replyTimeoutMs} ms` });
      }, this.target.replyTimeoutMs);
      this.ackWaits.set(tag, { resolve, timer });
      if (!this.conn.push(topic, event, payload, true, undefined, tag)) {
        clearTimeout(timer);
        this.ackWaits.delete(tag);
        resolve({ ok: false, reason: 'socket not open' });
      }
    });
  }

  heartbeat(): void {
    if (!this.closed) this.conn.heartbeat();
  }

  close(): void {
    this.conn.close();
  }
}
