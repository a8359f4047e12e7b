/**
 * What happens to the connections of one generator process, as each Connection tells it
 * (client/connection-hooks): a connection is opened with its tokens, joins its topic once its
 * socket is open, is counted joined, failed or dropped, reconnects after its backoff
 * (load.reconnect, generator/reconnect), and what it receives goes into the delivery ledger or,
 * without a stamp, to generator/slow-frames. Counts go into the step's counters
 * (generator/step-lifecycle); where each connection is in its life is generator/connection-set's.
 */
import { Connection, type ConnectionHooks } from '../client/connection.js';
import type { ClassifiedError } from '../client/classify.js';
import { nowMs } from '../measure/clock.js';
import type { ReceiveLedger } from '../measure/ledger.js';
import type { Frame } from '../protocol/frame-types.js';
import type { Stamp } from '../protocol/stamp.js';
import type { Profile } from '../profile/schema.js';
import type { ConnectionSet, ConnMeta } from './connection-set.js';
import { dialOptions, type DialTarget } from './dial.js';
import { nameLateHeartbeatClose } from './late-heartbeat.js';
import { reconnectDelayMs } from './reconnect.js';
import { recordSlowFrame } from './slow-frames.js';
import { countDisconnect, countJoin } from './step-counters.js';
import type { StepNow } from './step-lifecycle.js';
import type { StepSends } from './step-sends.js';
import type { TokenRenewal } from './token-renewal.js';
import { joinPayload } from './traffic.js';

type ErrorPhase = Parameters<ConnectionHooks['onError']>[2];

/** What the connections' events work on: the process's parts they share with the steps. */
export interface ConnectionEventsParts {
  profile: Profile;
  /** How a connection reaches the target (generator/dial). */
  dial: DialTarget;
  /** How many processes (× segments) share the connections: the dial's source-address spread. */
  owners: number;
  set: ConnectionSet<Connection>;
  ledger: ReceiveLedger;
  renewal: TokenRenewal<Connection>;
  /** The step now: its plan, and the counters the events count into. */
  steps: StepNow;
  /** What the step sends and the replies it waits for. */
  stepSends: StepSends;
  /** The step's ramp, told whenever something that may hold it back is settled. */
  ramps: { settle(): void };
  /** The process is stopping. */
  stopped(): boolean;
}

export class ConnectionEvents implements ConnectionHooks {
  /** The ledger, held directly: onStamp is the receive hot path. */
  private readonly ledger: ReceiveLedger;
  /**
   * Connections whose socket's end was reported: a socket error on an open connection and the
   * close that follows it are one loss, counted once (the first report, which names the cause).
   */
  private readonly socketEnded = new WeakSet<Connection>();

  constructor(private readonly p: ConnectionEventsParts) {
    this.ledger = p.ledger;
  }

  /** Opens connection i, scheduled at `scheduledMs`, by attempt `attempt` (0: the ramp's). */
  open(i: number, scheduledMs: number, attempt: number): void {
    const { p } = this;
    const plan = p.steps.plan!;
    const c = new Connection(i, p.profile.target.vsn, this);
    const m: ConnMeta = {
      topic: plan.topicOf(i),
      changesKey: plan.changesKeyOf?.(i) ?? null,
      scheduledMs,
      leftAtMs: Infinity,
      step: p.steps.step,
      token: null,
      userToken: null,
      attempt,
    };
    p.set.add(c, m);
    void p.renewal.tokensFor(i, Boolean(plan.userClaimsOf?.(i))).then(
      ([token, userToken]) => {
        if (p.stopped()) return;
        m.token = token;
        m.userToken = userToken;
        c.connect(dialOptions(p.dial, i, p.owners, token));
      },
      (e: Error) => {
        this.onError(c, { class: 'generator', reason: `token: ${e.message}` }, 'connect');
      },
    );
  }

  /** Timeouts of joins and subscriptions at `now`; token renewals due. */
  maintain(now: number): void {
    const { p } = this;
    const joinTimeoutMs = p.profile.target.join_timeout;
    const unconfirmed = p.set.expire(now, joinTimeoutMs);
    for (let n = 0; n < unconfirmed.length; n++) {
      const reason = `postgres_changes: subscription not confirmed within ${joinTimeoutMs} ms`;
      p.steps.countError({ class: 'server', reason: `${reason} of the join` });
    }
    if (unconfirmed.length > 0) p.ramps.settle();
    p.renewal.renewDue(
      now,
      (c) => p.set.meta.get(c),
      p.stopped,
      (e) => p.steps.countError({ class: 'generator', reason: `token: ${e.message}` }),
    );
  }

  /** Reconnects a connection that failed or was dropped, after its backoff (./reconnect). */
  private maybeReconnect(c: Connection): void {
    const { p } = this;
    const policy = p.steps.plan?.reconnect;
    const m = p.set.meta.get(c);
    if (!policy || !m || p.stopped() || !p.set.isCurrent(c)) return;
    const delay = reconnectDelayMs(policy, m.attempt, Math.random());
    if (delay === null) return;
    const step = p.steps.step;
    setTimeout(() => {
      if (p.stopped() || p.steps.step !== step || !p.set.isCurrent(c)) return;
      p.steps.counters.reconnects++;
      this.open(c.index, nowMs(), m.attempt + 1);
    }, delay);
  }

  // ------------------------------------------------------------------ hooks (hot path first)

  onStamp(c: Connection, stamp: Stamp, recvMs: number, bytes: number): void {
    this.ledger.record(c.member, stamp.stream, stamp.id, stamp.sentAtMs, recvMs, bytes);
  }

  onOpen(c: Connection): void {
    const { p } = this;
    p.steps.counters.opened++;
    const m = p.set.opened(c);
    if (!m) return;
    const config = p.steps.plan!.joinConfigOf(c.index);
    c.join(m.topic, joinPayload(p.profile, config, m.userToken ?? m.token));
  }

  onJoined(c: Connection, _topic: string, _response: unknown, replyMs: number): void {
    const { p } = this;
    const now = nowMs();
    const m = p.set.joined(c, now);
    countJoin(p.steps.counters, p.steps.second, m, p.steps.step, now, replyMs, c.index);
    if (m && p.steps.plan?.joinConfigOf(c.index).presenceTrackOnJoin) {
      p.stepSends.trackOnJoin(c, m.topic);
    }
    if (m) p.renewal.track(c, m);
    p.ramps.settle();
  }

  onError(c: Connection, e: ClassifiedError, phase: ErrorPhase): void {
    const { p } = this;
    if (phase === 'socket') {
      if (this.socketEnded.has(c)) return;
      this.socketEnded.add(c);
    }
    p.steps.countError(phase === 'socket' ? this.nameClose(c, e) : e);
    if (phase !== 'frame' && p.set.leaveSubscribing(c)) p.ramps.settle();
    if (phase === 'connect' || phase === 'join') {
      p.steps.counters.failed++;
      if (p.set.leaveJoining(c)) p.ramps.settle();
      if (phase === 'join') c.close(1000, 'join failed');
      this.maybeReconnect(c);
      return;
    }
    if (phase === 'channel' || phase === 'socket' || phase === 'heartbeat') {
      if (p.set.endMembership(c, true)) {
        countDisconnect(p.steps.counters, p.steps.second, c.index, nowMs());
        if (phase === 'channel') c.close(1000, 'channel closed');
        this.maybeReconnect(c);
      }
    }
  }

  /** A server's close, named for what came just before it: a binary push, a late heartbeat. */
  private nameClose(c: Connection, e: ClassifiedError): ClassifiedError {
    const now = nowMs();
    const named = this.p.stepSends.nameClose(c, e, now);
    const intervalMs = this.p.profile.target.heartbeat_interval;
    return nameLateHeartbeatClose(named, c.heartbeatGapMs(now), intervalMs);
  }

  onClosed(c: Connection, byUs: boolean): void {
    const { p } = this;
    p.set.closed(c);
    if (p.set.leaveSubscribing(c)) p.ramps.settle();
    if (p.set.leaveJoining(c)) {
      // Closed before the join completed and not counted yet.
      if (!byUs) {
        p.steps.counters.failed++;
        this.maybeReconnect(c);
      }
      p.ramps.settle();
    }
    if (p.set.endMembership(c, !byUs) && !byUs) {
      countDisconnect(p.steps.counters, p.steps.second, c.index, nowMs());
      this.maybeReconnect(c);
    }
  }

  onAck(
    _c: Connection,
    ok: boolean,
    reason: string | null,
    _latencyMs: number,
    tag?: string,
    ackId?: number,
  ): void {
    this.p.stepSends.answered(ok, reason, tag, ackId);
  }

  /** Slow path: presence diffs, Postgres Changes and system messages (generator/slow-frames). */
  onFrame(c: Connection, f: Frame): void {
    const { p } = this;
    const confirmed = recordSlowFrame(c.member, f, nowMs(), this.ledger, p.steps.counters);
    if (confirmed && p.set.leaveSubscribing(c)) p.ramps.settle();
  }
}
