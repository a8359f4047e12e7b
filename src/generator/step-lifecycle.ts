/**
 * The steps of one generator process, as the coordinator walks them: a step begins with its
 * first ramp, shrink or send message (its plan rebuilt for this process's segment, its ledger and
 * sends fresh), its ramp opens this process's share of the new connections on the open-model
 * join schedule (generator/ramp), its traffic makes the sends the plan gives the connections it
 * holds (generator/step-traffic), and its collection hands the coordinator what the step measured
 * (generator/step-collection). It holds the step's plan and counters, which the connections'
 * events (generator/connection-events) read and count into.
 *
 * A collection opens the next step's counters: what the connections do after it (frames still
 * arriving, drops, reconnects) is counted in the next step, never lost between the two; the
 * ledger counts receipts after it as the next step's stale ones (measure/ledger).
 */
import type { ClassifiedError } from '../client/classify.js';
import type { Connection } from '../client/connection.js';
import { nowMs } from '../measure/clock.js';
import type { HealthMonitor } from '../measure/health.js';
import type { ReceiveLedger } from '../measure/ledger.js';
import type { SendLedger } from '../measure/send-ledger.js';
import type { Profile } from '../profile/schema.js';
import { getScenario } from '../scenarios/index.js';
import type { StepPlan } from '../scenarios/types.js';
import type { ConnectionSet } from './connection-set.js';
import type { FromWorker, StepCollected } from './ipc.js';
import { realPacer } from './pacer.js';
import { RampDriver } from './ramp.js';
import { OFFERED_GRACE_MS } from './schedule.js';
import { segmentPlan, streamSenderSegment, type Segment } from './segment.js';
import { stepCollected } from './step-collection.js';
import {
  countError,
  newSecondCounters,
  newStepCounters,
  type SecondCounters,
  type StepCounters,
} from './step-counters.js';
import { StepSends } from './step-sends.js';
import { stepTrafficRun } from './step-traffic.js';
import { runTraffic } from './traffic-driver.js';

/** What a connection's events read of the step and count into. */
export interface StepNow {
  /** The step the process is in; -1 before the first. */
  readonly step: number;
  /** Its plan; null before the first step. */
  readonly plan: StepPlan | null;
  /** The counters events count into. */
  readonly counters: StepCounters;
  /** This second's counters (the per-second line). */
  readonly second: SecondCounters;
  /** Counts an error in the step and in the second. */
  countError(e: ClassifiedError): void;
}

/** What the step lifecycle works on: the process's parts it shares with the events. */
export interface StepLifecycleParts {
  /** This process's index among the generator processes. */
  worker: number;
  /** This machine's part of the run (generator/segment). */
  segment: Segment;
  profile: Profile;
  /** This process holds connection i. */
  mine(i: number): boolean;
  set: ConnectionSet<Connection>;
  ledger: ReceiveLedger;
  sends: SendLedger;
  health: HealthMonitor;
  /** Opens connection i, due at `dueMs`, as a first attempt (generator/connection-events). */
  open(i: number, dueMs: number): void;
  /** Tells the coordinator (ramp done, sends done). */
  post(m: FromWorker): void;
  /** The process is stopping. */
  stopped(): boolean;
}

export class StepLifecycle implements StepNow {
  private current = -1;
  private currentPlan: StepPlan | null = null;
  /** The counters events count into: the step's, from its collection on the next step's. */
  private stepCounters = newStepCounters();
  /** The counters were opened for a step not begun yet (at the start, or by a collection). */
  private countersAhead = true;
  /** The step's collection once made: asked again, the same answer. */
  private collected: StepCollected | null = null;
  /** The step's failed joins and errors when its ramp started: rampDone reports its own. */
  private atRampStart = { failed: 0, errors: new Map<string, number>() };
  /** This second's counters; replaced whole each second. */
  private secondCounters = newSecondCounters();
  /** What the step sends and the replies it waits for. */
  readonly stepSends: StepSends;
  /** The step's join ramp. */
  readonly ramps: RampDriver;

  constructor(private readonly p: StepLifecycleParts) {
    this.stepSends = new StepSends(p.profile.load.ack_timeout, (e) => this.countError(e));
    this.ramps = new RampDriver(realPacer, {
      currentStep: () => this.current,
      waitingSubscriptions: () => p.set.subscribing.size,
      rampDone: () => this.postRampDone(),
    });
  }

  get step(): number {
    return this.current;
  }

  get plan(): StepPlan | null {
    return this.currentPlan;
  }

  get counters(): StepCounters {
    return this.stepCounters;
  }

  get second(): SecondCounters {
    return this.secondCounters;
  }

  countError(e: ClassifiedError): void {
    countError(this.stepCounters, this.secondCounters, e);
  }

  /** This second's counters, replaced by fresh ones for the next second. */
  takeSecond(): SecondCounters {
    const s = this.secondCounters;
    this.secondCounters = newSecondCounters();
    return s;
  }

  /** A step decided at run time (a sweep's): it replaces the profile's step `index`. */
  define(index: number, spec: Profile['load']['steps'][number]): void {
    this.p.profile.load.steps[index] = spec;
  }

  /** Opens this process's share of connections [fromConn, toConn) from `startMs`. */
  ramp(step: number, fromConn: number, toConn: number, startMs: number): void {
    this.beginIfNew(step);
    const lateMs = this.p.profile.load.late_threshold;
    const k = this.stepCounters;
    this.atRampStart = { failed: k.failed, errors: new Map(k.errors) };
    k.scheduledJoins += this.ramps.start({
      step,
      fromConn,
      toConn,
      startMs,
      joinRatePerS: this.currentPlan!.joinRatePerS,
      mine: this.p.mine,
      open: (i, dueMs, lateByMs) => {
        if (lateByMs > lateMs) this.stepCounters.lateJoins++;
        if (lateByMs > OFFERED_GRACE_MS) this.stepCounters.rampJoins.behindSchedule++;
        this.p.open(i, dueMs);
      },
      stopped: this.p.stopped,
    });
  }

  /** Closes the connections of index ≥ `toConn` (a step with fewer connections). */
  shrink(step: number, toConn: number): void {
    this.beginIfNew(step);
    this.p.set.shrink(toConn);
  }

  /** Runs the step's sends from `startMs`; posts sendDone when they are over. */
  send(step: number, startMs: number): void {
    this.beginIfNew(step);
    const p = this.p;
    setTimeout(() => p.health.resetWindow(), Math.max(0, startMs - nowMs()));
    const run = stepTrafficRun({
      plan: this.currentPlan!,
      startMs,
      set: p.set,
      stepSends: this.stepSends,
      sends: p.sends,
      stats: this.stepCounters.sendStats,
      mine: p.mine,
      currentStep: () => this.current,
      cancelled: () => p.stopped() || this.current !== step,
      done: () => p.post({ type: 'sendDone', worker: p.worker, step }),
    });
    runTraffic(realPacer, run);
  }

  /**
   * What the step measured; acks and tracks still pending are counted unanswered. From now on the
   * connections count into the next step.
   */
  collect(): StepCollected {
    if (this.collected) return this.collected;
    const p = this.p;
    this.stepSends.endStep();
    const collected = stepCollected({
      worker: p.worker,
      step: this.current,
      segment: p.segment.index,
      counters: this.stepCounters,
      receipts: p.ledger.snapshot(),
      connections: p.set.endOfStep(this.current),
      sends: p.sends.snapshot(),
      sent: { sent: p.sends.sent, failed: p.sends.failed, late: p.sends.late },
      lagP99Ms: p.health.windowLagP99Ms(),
    });
    this.collected = collected;
    p.ledger.closeStep();
    this.stepCounters = newStepCounters();
    this.countersAhead = true;
    this.stepSends.countInto(this.stepCounters);
    return collected;
  }

  /** Acks and presence tracks unanswered past load.ack_timeout at `now`. */
  expireSends(now: number): void {
    this.stepSends.acks.expire(now);
    this.stepSends.tracks.expire(now);
  }

  private beginIfNew(step: number): void {
    if (step === this.current) return;
    const p = this.p;
    this.current = step;
    // A segment runs the plan with its relay senders (generator/segment); one machine: the plan
    // as is.
    const segments = p.segment.count;
    const plan = segmentPlan(getScenario(p.profile.scenario).plan(p.profile, step), segments);
    this.currentPlan = plan;
    const senderOf = streamSenderSegment(plan, segments);
    p.ledger.beginStep(step, { segment: p.segment.index, segments, senderOf });
    p.set.subscribing.clear();
    p.sends.beginStep(p.profile.load.late_threshold);
    // Counters opened by the last collection are this step's; else (a step never collected) new.
    if (!this.countersAhead) this.stepCounters = newStepCounters();
    this.countersAhead = false;
    this.collected = null;
    this.stepSends.beginStep(p.profile, plan.payloadBytes, this.stepCounters);
  }

  private postRampDone(): void {
    const k = this.stepCounters;
    const at = this.atRampStart;
    const errors = countsSince(k.errors, at.errors);
    const failed = k.failed - at.failed;
    const joined = this.p.set.joinedNow;
    const step = this.current;
    const joins = { ramp: { ...k.rampJoins }, rejoins: k.rejoins };
    const scheduledJoins = k.scheduledJoins;
    const worker = this.p.worker;
    this.p.post({ type: 'rampDone', worker, step, joined, failed, errors, joins, scheduledJoins });
    // The event-loop lag window starts again with the ramp's end: a step a search ends with its
    // ramp reports the lag since, not the previous step's (its sends, if it has any, reset it).
    this.p.health.resetWindow();
  }
}

/** What `now` counts beyond `before`, by reason. */
function countsSince(
  now: Map<string, number>,
  before: Map<string, number>,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [reason, n] of now) {
    const more = n - (before.get(reason) ?? 0);
    if (more > 0) out[reason] = more;
  }
  return out;
}
