/**
 * The connections one generator process holds, with what each was opened for (its topic,
 * scheduled time, step, tokens, attempt) and where it is in its life: joining (join sent, no
 * answer yet), subscribing (joined with a postgres_changes binding, "Subscribed to
 * PostgreSQL" not in yet: the ramp waits for them, as docs/METHOD.md §6 reconciles before the
 * rounds), member (joined, not left), closed. The worker counts; this set keeps the states and the
 * live counts (open, joined) consistent.
 */
import type { Connection } from '../client/connection.js';
import { nowMs } from '../measure/clock.js';
import type { MemberInterval } from '../measure/membership.js';

/** What the set needs of a connection (a fake one in unit tests). */
export type HeldConnection = Pick<
  Connection,
  | 'index'
  | 'member'
  | 'state'
  | 'openedAtMs'
  | 'close'
  | 'expireJoins'
  | 'heartbeat'
  | 'heartbeatAwaited'
>;

/** What a connection was opened for. */
export interface ConnMeta {
  topic: string;
  /** The Postgres Changes key its subscription is measured under, or null. */
  changesKey: string | null;
  scheduledMs: number;
  /** When it stopped being a member; Infinity while it is one (or never joined). */
  leftAtMs: number;
  step: number;
  token: string | null;
  userToken: string | null;
  /** 0 for the ramp's open, n for the n-th reconnect. */
  attempt: number;
  /** Its membership ended because the server or the network dropped it. */
  dropped?: boolean;
}

/** Who else hears of a connection's life: the ramp (answered joins) and token renewal. */
export interface ConnectionSetEvents<C> {
  /** A first attempt (not a reconnect) was opened. */
  attemptOpened(): void;
  /** A first attempt's join was answered (joined, failed or closed). */
  attemptAnswered(): void;
  /** The connection stopped being a member: its token needs no renewal any more. */
  membershipEnded(c: C): void;
}

/** The step's membership per topic (and changes key), as the ledger's expected counts need. */
export interface MembershipAtEnd {
  membership: Record<string, MemberInterval[]>;
  openAtEnd: number;
  joinedAtEnd: number;
}

export class ConnectionSet<C extends HeldConnection> {
  /** The current connection of each global index. */
  readonly byIndex = new Map<number, C>();
  /** Every connection still reported (the step's, and older ones until they are closed). */
  readonly meta = new Map<C, ConnMeta>();
  readonly joining = new Set<C>();
  readonly subscribing = new Set<C>();
  openNow = 0;
  joinedNow = 0;

  constructor(
    private readonly events: ConnectionSetEvents<C>,
    private readonly clockMs: () => number = nowMs,
  ) {}

  /** A connection just created for index `c.index`; it replaces any older one there. */
  add(c: C, m: ConnMeta): void {
    this.byIndex.set(c.index, c);
    this.meta.set(c, m);
    this.joining.add(c);
    if (m.attempt === 0) this.events.attemptOpened();
  }

  /** Whether `c` is still the connection of its index (not replaced, not shrunk away). */
  isCurrent(c: C): boolean {
    return this.byIndex.get(c.index) === c;
  }

  /** The socket opened; its meta, or undefined for a connection the set does not hold. */
  opened(c: C): ConnMeta | undefined {
    this.openNow++;
    return this.meta.get(c);
  }

  /** The join was answered ok at `joinedAtMs`. */
  joined(c: C, joinedAtMs: number): ConnMeta | undefined {
    const m = this.meta.get(c);
    c.member.joinedAtMs = joinedAtMs;
    this.leaveJoining(c);
    this.joinedNow++;
    if (m?.changesKey) this.subscribing.add(c);
    return m;
  }

  /** No longer waiting for its join's answer; true if it was. */
  leaveJoining(c: C): boolean {
    if (!this.joining.delete(c)) return false;
    if (this.meta.get(c)?.attempt === 0) this.events.attemptAnswered();
    return true;
  }

  /** No longer waiting for its subscription's confirmation; true if it was. */
  leaveSubscribing(c: C): boolean {
    return this.subscribing.delete(c);
  }

  /**
   * Ends the connection's membership of its topic now; true if it was a member. `dropped`: the
   * server or the network ended it, not rtcap.
   */
  endMembership(c: C, dropped = false): boolean {
    this.events.membershipEnded(c);
    const m = this.meta.get(c);
    if (!m || c.member.joinedAtMs === 0 || m.leftAtMs !== Infinity) return false;
    m.leftAtMs = this.clockMs();
    if (dropped) m.dropped = true;
    this.joinedNow--;
    return true;
  }

  /** The socket is gone. */
  closed(c: C): void {
    if (c.openedAtMs > 0) this.openNow--;
  }

  /** Closes every connection of index ≥ `toConn` (a step with fewer connections). */
  shrink(toConn: number): void {
    for (const [i, c] of this.byIndex) {
      if (i >= toConn) {
        this.endMembership(c);
        c.close(1000, 'step shrink');
        this.byIndex.delete(i);
      }
    }
  }

  /**
   * Joins unanswered for `joinTimeoutMs` fail (the connection reports them), and subscriptions
   * unconfirmed that long after the join stop being waited for: those are returned.
   */
  expire(now: number, joinTimeoutMs: number): C[] {
    for (const c of this.joining) c.expireJoins(now, joinTimeoutMs);
    const unconfirmed: C[] = [];
    for (const c of this.subscribing) {
      if (now - c.member.joinedAtMs <= joinTimeoutMs) continue;
      this.subscribing.delete(c);
      unconfirmed.push(c);
    }
    return unconfirmed;
  }

  /**
   * Heartbeats the connections of one slot (each connection once per `slots` calls): at once
   * those whose last heartbeat was answered. Those still awaiting a reply are returned as what
   * to do once the event loop has read its sockets (the reply may be there unread after a held
   * loop); null when there are none.
   */
  heartbeat(slot: number, slots: number): (() => void) | null {
    let awaited: C[] | null = null;
    // values(), not entries: a [key, value] array per connection per second was ~1 MB/s of
    // garbage in a process holding 12,500 idle connections.
    for (const c of this.byIndex.values()) {
      if (c.index % slots !== slot) continue;
      if (c.heartbeatAwaited) (awaited ??= []).push(c);
      else c.heartbeat();
    }
    if (awaited === null) return null;
    const later = awaited;
    return () => {
      for (const c of later) c.heartbeat();
    };
  }

  /**
   * Membership intervals of every connection reported in `step`, and how many were open and
   * joined at its end; connections closed for good in an earlier step are dropped after.
   */
  endOfStep(step: number): MembershipAtEnd {
    const membership: Record<string, MemberInterval[]> = {};
    let openAtEnd = 0;
    let joinedAtEnd = 0;
    for (const [c, m] of this.meta) {
      const { joinedAtMs, subscribedAtMs } = c.member;
      if (c.state === 'open') openAtEnd++;
      if (joinedAtMs > 0 && m.leftAtMs === Infinity) joinedAtEnd++;
      const dropped = m.dropped ? { dropped: true, conn: c.index } : {};
      if (joinedAtMs > 0)
        (membership[m.topic] ??= []).push({ joinedAtMs, leftAtMs: m.leftAtMs, ...dropped });
      if (m.changesKey && subscribedAtMs > 0) {
        const interval = { joinedAtMs: subscribedAtMs, leftAtMs: m.leftAtMs, ...dropped };
        (membership[m.changesKey] ??= []).push(interval);
      }
    }
    // Connections gone for good are no longer needed once reported.
    for (const [c, m] of this.meta) {
      if (c.state === 'closed' && m.leftAtMs !== Infinity && m.step < step) this.meta.delete(c);
    }
    return { membership, openAtEnd, joinedAtEnd };
  }

  closeAll(reason: string): void {
    for (const c of this.byIndex.values()) c.close(1000, reason);
  }
}
