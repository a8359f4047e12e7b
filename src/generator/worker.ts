/**
 * One generator process: holds its shard of the connections (global index i where
 * i mod workers = this worker), opens them on the open-model join schedule, drives the
 * broadcast and presence schedules for the senders it holds, and keeps the delivery ledger.
 * It reports a line of stats every second and the step's ledger when asked.
 *
 * This class dispatches the coordinator's messages and the connections' hooks; its parts
 * keep the state: connection-set (the connections and where each is in its life),
 * token-renewal (tokens and their renewal), second-report (the per-second line),
 * step-collection (the step's measurement), dial (how a connection reaches the target),
 * step-traffic (a step's send phase on its connections), worker-timers (its clocks).
 */
import { Connection, type ConnectionHooks } from '../client/connection.js';
import type { ClassifiedError } from '../client/classify.js';
import { nowMs } from '../measure/clock.js';
import { ReceiveLedger, SendLedger } from '../measure/ledger.js';
import { HealthMonitor } from '../measure/health.js';
import { rssMb } from '../measure/process-rss.js';
import type { Frame } from '../protocol/frame-types.js';
import type { Stamp } from '../protocol/stamp.js';
import type { Profile } from '../profile/schema.js';
import { getScenario } from '../scenarios/index.js';
import { ownershipOf, segmentPlan, streamSenderSegment, WHOLE, type Segment } from './segment.js';
import type { StepPlan } from '../scenarios/types.js';
import type { FromWorker, StepCollected, ToWorker } from './ipc.js';
import { ConnectionSet, type ConnMeta } from './connection-set.js';
import { dialOptions, dialTargetOf, type DialTarget } from './dial.js';
import { realPacer } from './pacer.js';
import { RampDriver } from './ramp.js';
import { reconnectDelayMs } from './reconnect.js';
import { OFFERED_GRACE_MS } from './schedule.js';
import { SecondClock, secondLine } from './second-report.js';
import { stepCollected } from './step-collection.js';
import { StepSends } from './step-sends.js';
import {
  countDisconnect,
  countError,
  countJoin,
  newSecondCounters,
  newStepCounters,
} from './step-counters.js';
import { TokenRenewal } from './token-renewal.js';
import { runTraffic } from './traffic-driver.js';
import { stepTrafficRun } from './step-traffic.js';
import { startWorkerTimers } from './worker-timers.js';
import { joinPayload } from './traffic.js';
import { recordSlowFrame } from './slow-frames.js';

type ErrorPhase = Parameters<ConnectionHooks['onError']>[2];

export class GeneratorWorker implements ConnectionHooks {
  private index = 0;
  /** Connection c is this process's when c mod owners = owner (segments × processes). */
  private owner = 0;
  private owners = 1;
  private segment: Segment = WHOLE;
  private profile!: Profile;
  private dial!: DialTarget;
  private renewal!: TokenRenewal<Connection>;
  private readonly set = new ConnectionSet<Connection>({
    attemptOpened: () => this.ramps.attemptOpened(),
    attemptAnswered: () => this.ramps.attemptAnswered(),
    membershipEnded: (c) => this.renewal.untrack(c),
  });
  private readonly ledger = new ReceiveLedger();
  private readonly sends = new SendLedger(5);
  private readonly health = new HealthMonitor();
  private stepSends!: StepSends;
  private plan: StepPlan | null = null;
  private step = -1;

  /** This step's counters; replaced whole when a step begins. */
  private counters = newStepCounters();
  /** This second's counters; replaced whole each second. */
  private second = newSecondCounters();
  private readonly seconds = new SecondClock();

  private readonly ramps = new RampDriver(realPacer, {
    currentStep: () => this.step,
    waitingSubscriptions: () => this.set.subscribing.size,
    rampDone: () => this.postRampDone(),
  });
  private timers: NodeJS.Timeout[] = [];
  private stopped = false;

  constructor(private readonly post: (m: FromWorker) => void) {}

  handle(m: ToWorker): void {
    switch (m.type) {
      case 'init':
        this.init(m);
        return;
      case 'step':
        this.profile.load.steps[m.index] = m.spec;
        return;
      case 'ramp':
        this.beginStepIfNew(m.step);
        this.ramp(m.fromConn, m.toConn, m.startMs);
        return;
      case 'shrink':
        this.beginStepIfNew(m.step);
        this.set.shrink(m.toConn);
        return;
      case 'send':
        this.beginStepIfNew(m.step);
        this.runTraffic(m.startMs);
        return;
      case 'collect':
        this.post(this.collect());
        return;
      case 'stop':
        this.stop();
        return;
    }
  }

  private init(m: Extract<ToWorker, { type: 'init' }>): void {
    this.index = m.workerIndex;
    this.segment = m.segment ?? WHOLE;
    const own = ownershipOf(this.segment, m.workerIndex, m.workers);
    this.owner = own.owner;
    this.owners = own.owners;
    this.profile = m.profile;
    this.dial = dialTargetOf(m);
    this.stepSends = new StepSends(m.profile.load.ack_timeout, (e) => this.countError(e));
    const userClaimsOf = (i: number) => this.plan?.userClaimsOf?.(i) ?? {};
    this.renewal = new TokenRenewal<Connection>(m.tokens, userClaimsOf);
    this.startTimers();
    this.post({ type: 'ready', worker: this.index, rssMb: rssMb() });
  }

  private beginStepIfNew(step: number): void {
    if (step === this.step) return;
    this.step = step;
    // A segment runs the plan with its relay senders (generator/segment); one machine: the plan
    // as is.
    const segments = this.segment.count;
    const plan = segmentPlan(getScenario(this.profile.scenario).plan(this.profile, step), segments);
    this.plan = plan;
    const senderOf = streamSenderSegment(plan, segments);
    this.ledger.beginStep(step, { segment: this.segment.index, segments, senderOf });
    this.set.subscribing.clear();
    this.sends.beginStep(this.profile.load.late_threshold);
    this.counters = newStepCounters();
    this.stepSends.beginStep(this.profile, plan.payloadBytes, this.counters);
  }

  // ------------------------------------------------------------------ timers

  private startTimers(): void {
    this.timers = startWorkerTimers(this.profile.target.heartbeat_interval, {
      stopped: () => this.stopped,
      reportSecond: () => this.reportSecond(),
      heartbeat: (slot, slots) => this.set.heartbeat(slot, slots),
      maintain: (now) => this.maintain(now),
    });
  }

  /** Timeouts of joins, subscriptions, acks and tracks; token renewals due. */
  private maintain(now: number): void {
    const joinTimeoutMs = this.profile.target.join_timeout;
    const unconfirmed = this.set.expire(now, joinTimeoutMs);
    for (let n = 0; n < unconfirmed.length; n++) {
      const reason = `postgres_changes: subscription not confirmed within ${joinTimeoutMs} ms`;
      this.countError({ class: 'server', reason: `${reason} of the join` });
    }
    if (unconfirmed.length > 0) this.ramps.settle();
    this.stepSends.acks.expire(now);
    this.renewal.renewDue(
      now,
      (c) => this.set.meta.get(c),
      () => this.stopped,
      (e) => this.countError({ class: 'generator', reason: `token: ${e.message}` }),
    );
    this.stepSends.tracks.expire(now);
  }

  private reportSecond(): void {
    const receipts = this.ledger.takeSecond();
    const counted = this.second;
    this.second = newSecondCounters();
    this.post(
      secondLine({
        worker: this.index,
        t: this.seconds.secondEnded(Date.now()),
        open: this.set.openNow,
        joined: this.set.joinedNow,
        counted,
        sent: this.sends.sentThisSecond,
        acked: this.stepSends.acks.takeSecond(),
        acksPending: this.stepSends.acks.size,
        receipts,
        health: this.health.sample(),
      }),
    );
    this.sends.sentThisSecond = 0;
  }

  // ------------------------------------------------------------------ ramp

  private mine(i: number): boolean {
    return i % this.owners === this.owner;
  }

  private ramp(fromConn: number, toConn: number, startMs: number): void {
    const lateMs = this.profile.load.late_threshold;
    this.counters.scheduledJoins += this.ramps.start({
      step: this.step,
      fromConn,
      toConn,
      startMs,
      joinRatePerS: this.plan!.joinRatePerS,
      mine: (i) => this.mine(i),
      open: (i, dueMs, lateByMs) => {
        if (lateByMs > lateMs) this.counters.lateJoins++;
        if (lateByMs > OFFERED_GRACE_MS) this.counters.rampJoins.behindSchedule++;
        this.open(i, dueMs, 0);
      },
      stopped: () => this.stopped,
    });
  }

  private open(i: number, scheduledMs: number, attempt: number): void {
    const plan = this.plan!;
    const c = new Connection(i, this.profile.target.vsn, this);
    const m: ConnMeta = {
      topic: plan.topicOf(i),
      changesKey: plan.changesKeyOf?.(i) ?? null,
      scheduledMs,
      leftAtMs: Infinity,
      step: this.step,
      token: null,
      userToken: null,
      attempt,
    };
    this.set.add(c, m);
    void this.renewal.tokensFor(i, Boolean(plan.userClaimsOf?.(i))).then(
      ([token, userToken]) => {
        if (this.stopped) return;
        m.token = token;
        m.userToken = userToken;
        c.connect(dialOptions(this.dial, i, this.owners, token));
      },
      (e: Error) => {
        this.onError(c, { class: 'generator', reason: `token: ${e.message}` }, 'connect');
      },
    );
  }

  private postRampDone(): void {
    const k = this.counters;
    const errors = Object.fromEntries(k.errors);
    const joined = this.set.joinedNow;
    const failed = k.failed;
    this.post({ type: 'rampDone', worker: this.index, step: this.step, joined, failed, errors });
  }

  /** Reconnects a connection that failed or was dropped, after its backoff (./reconnect). */
  private maybeReconnect(c: Connection): void {
    const policy = this.plan?.reconnect;
    const m = this.set.meta.get(c);
    if (!policy || !m || this.stopped || !this.set.isCurrent(c)) return;
    const delay = reconnectDelayMs(policy, m.attempt, Math.random());
    if (delay === null) return;
    const step = this.step;
    setTimeout(() => {
      if (this.stopped || this.step !== step || !this.set.isCurrent(c)) return;
      this.counters.reconnects++;
      this.open(c.index, nowMs(), m.attempt + 1);
    }, delay);
  }

  // ------------------------------------------------------------------ traffic

  private runTraffic(startMs: number): void {
    const step = this.step;
    setTimeout(() => this.health.resetWindow(), Math.max(0, startMs - nowMs()));
    const run = stepTrafficRun({
      plan: this.plan!,
      startMs,
      set: this.set,
      stepSends: this.stepSends,
      sends: this.sends,
      stats: this.counters.sendStats,
      mine: (i) => this.mine(i),
      currentStep: () => this.step,
      cancelled: () => this.stopped || this.step !== step,
      done: () => this.post({ type: 'sendDone', worker: this.index, step }),
    });
    runTraffic(realPacer, run);
  }

  // ------------------------------------------------------------------ collect

  private collect(): StepCollected {
    this.stepSends.endStep();
    return stepCollected({
      worker: this.index,
      step: this.step,
      segment: this.segment.index,
      counters: this.counters,
      receipts: this.ledger.snapshot(),
      connections: this.set.endOfStep(this.step),
      sends: this.sends.snapshot(),
      sent: { sent: this.sends.sent, failed: this.sends.failed, late: this.sends.late },
      lagP99Ms: this.health.windowLagP99Ms(),
    });
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.health.stop();
    this.set.closeAll('rtcap done');
  }

  // ------------------------------------------------------------------ hooks (hot path first)

  onStamp(c: Connection, stamp: Stamp, recvMs: number, bytes: number): void {
    this.ledger.record(c.member, stamp.stream, stamp.id, stamp.sentAtMs, recvMs, bytes);
  }

  onOpen(c: Connection): void {
    this.counters.opened++;
    const m = this.set.opened(c);
    if (!m) return;
    const config = this.plan!.joinConfigOf(c.index);
    c.join(m.topic, joinPayload(this.profile, config, m.userToken ?? m.token));
  }

  onJoined(c: Connection, _topic: string, _response: unknown, replyMs: number): void {
    const now = nowMs();
    const m = this.set.joined(c, now);
    countJoin(this.counters, this.second, m, this.step, now, replyMs, c.index);
    if (m && this.plan?.joinConfigOf(c.index).presenceTrackOnJoin) {
      this.stepSends.trackOnJoin(c, m.topic);
    }
    if (m) this.renewal.track(c, m);
    this.ramps.settle();
  }

  onError(c: Connection, e: ClassifiedError, phase: ErrorPhase): void {
    this.countError(phase === 'socket' ? this.stepSends.nameClose(c, e, nowMs()) : e);
    if (phase !== 'frame' && this.set.leaveSubscribing(c)) this.ramps.settle();
    if (phase === 'connect' || phase === 'join') {
      this.counters.failed++;
      if (this.set.leaveJoining(c)) this.ramps.settle();
      if (phase === 'join') c.close(1000, 'join failed');
      this.maybeReconnect(c);
      return;
    }
    if (phase === 'channel' || phase === 'socket' || phase === 'heartbeat') {
      if (this.set.endMembership(c, true)) {
        countDisconnect(this.counters, this.second, c.index, nowMs());
        if (phase === 'channel') c.close(1000, 'channel closed');
        this.maybeReconnect(c);
      }
    }
  }

  onClosed(c: Connection, byUs: boolean): void {
    this.set.closed(c);
    if (this.set.leaveSubscribing(c)) this.ramps.settle();
    if (this.set.leaveJoining(c)) {
      // Closed before the join completed and not counted yet.
      if (!byUs) {
        this.counters.failed++;
        this.maybeReconnect(c);
      }
      this.ramps.settle();
    }
    if (this.set.endMembership(c, !byUs) && !byUs) {
      countDisconnect(this.counters, this.second, c.index, nowMs());
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
    this.stepSends.answered(ok, reason, tag, ackId);
  }

  /** Slow path: presence diffs, Postgres Changes and system messages (generator/slow-frames). */
  onFrame(c: Connection, f: Frame): void {
    const confirmed = recordSlowFrame(c.member, f, nowMs(), this.ledger, this.counters);
    if (confirmed && this.set.leaveSubscribing(c)) this.ramps.settle();
  }

  private countError(e: ClassifiedError): void {
    countError(this.counters, this.second, e);
  }
}
