/**
 * One step's phases on the generator pool: topology change or fresh connections, ramp (or
 * shrink) to the step's connections, warm-up, the steady window (sends and the coordinator's
 * inserts), drain, and collecting what every process measured. An abort mid-step keeps what
 * the processes and the inserts still hand over.
 */
import { NO_CONNECTION_COULD_JOIN, STOPPED_EARLY } from '../result/cut-short.js';
import { nowMs } from '../measure/clock.js';
import type { Collection, WorkerPool } from '../load/pool.js';
import type { StepCollected } from '../generator/ipc.js';
import type { Profile } from '../profile/schema.js';
import type { StepPlan } from '../scenarios/types.js';
import { Abort, timeoutAfter, withinOrNull, type AbortFunnel } from './abort.js';
import { drain } from './drain.js';
import { closedDown, secondAfterRampWritten } from './step-waits.js';
import type { InsertRun } from '../load/inserts.js';
import type { LivePhase } from './live-state.js';
import { refusedByServer } from '../model/step-limit.js';
import { topError } from './step-health.js';
import type { StepWindow } from '../figures/window.js';
import type { Timeline } from '../figures/timeline.js';
import type { RampOutcome } from './run-options.js';
import type { StepTimes } from './segment-schedule.js';
import { unansweredWords, type StepCutShort } from '../result/cut-short.js';

export interface StepRun {
  window: StepWindow;
  /** Null when the processes no longer answered. */
  collected: StepCollected[] | null;
  inserts: Awaited<InsertRun['done']> | null;
  /** False when the step was cut short. */
  complete: boolean;
  /** Why the step (and the run) ended early. */
  abort: Abort | null;
  /**
   * What cut the step short, in which phase, and whether the processes answered the collect; null
   * for a step that ran every phase.
   */
  cut: StepCutShort | null;
}

/**
 * How long an abort waits for the processes' collect: an interrupted run must end within seconds;
 * after any other abort (a ramp past its deadline, the server gone) loaded processes get longer,
 * since without their answer the step keeps only what their per-second lines said.
 */
export const COLLECT_WAIT_MS = { interrupted: 5_000, aborted: 20_000 } as const;

/** What a step's phases drive: the processes, the merged seconds, the abort, the live phase. */
export interface StepDrive {
  pool: WorkerPool;
  timeline: Timeline;
  funnel: AbortFunnel;
  live: LivePhase;
}

/** How every step of the run is run: fixed for the run. */
export interface StepSettings {
  profile: Profile;
  log: (line: string) => void;
  /** Postgres Changes inserts go here. */
  dbConnectionString: string | null;
  /** "/N" after the step number when the number of steps is known. */
  stepsSuffix: string;
  /**
   * The local insert streams whose rows this coordinator inserts (a segmented run: its share,
   * generator/segment insertSegmentOf).
   */
  insertsMine: (localStream: number) => boolean;
  /**
   * Segments with --start-at: each step's ramp and steady start on the shared schedule
   * (run/segment-schedule).
   */
  schedule: StepTimes[] | null;
  /**
   * Why one broadcast of this step is too large a burst for a generator process (load/burst-plan);
   * null when it is not.
   */
  burstWarning?: (plan: StepPlan) => string | null;
  /**
   * Whether step `index`'s ramp the server refused outright is the step's answer, measured, not
   * a reason to stop (a search past its first step); absent: never.
   */
  refusalIsAStep?: (index: number) => boolean;
  /**
   * Asked once step `index`'s ramp is over: why the step can no longer end stable whatever the
   * rest of it measures (a search's rule, sweep/early-stop), so that it ends there, kept as a
   * step cut short; null to run the rest. Absent: never.
   */
  stopAfterRamp?: (index: number, ramp: RampOutcome) => string | null;
}

/** What runs the steps: what they drive, how they are run, the connections open between them. */
export interface StepRunner extends StepDrive, StepSettings {
  /** Connections open (joined or joining) now, carried from step to step. */
  current: number;
}

/** One step to run. */
export interface StepToRun {
  /** From 0. */
  index: number;
  plan: StepPlan;
  /** The step before's plan (its topology is compared with this one's). */
  before: StepPlan | undefined;
  /** Asked once the topology is settled: whether the step starts from fresh connections. */
  fresh: () => boolean;
}

async function closeAll(r: StepRunner, i: number): Promise<void> {
  const closedAt = nowMs();
  r.pool.broadcast({ type: 'shrink', step: i, toConn: 0 });
  r.current = 0;
  await closedDown(r, 0, closedAt);
}

/**
 * A step whose connections join other topics or configs, or that asks for fresh ones, starts from
 * none.
 */
async function resetConnections(r: StepRunner, step: StepToRun): Promise<void> {
  const { index: i, plan, before, fresh } = step;
  if (
    r.current > 0 &&
    plan.topology !== undefined &&
    before?.topology !== undefined &&
    plan.topology !== before.topology
  ) {
    r.log(
      `step ${i + 1}: new topology — closing ${r.current.toLocaleString('en-US')} connections to join them again`,
    );
    await closeAll(r, i);
  }
  if (r.current > 0 && fresh()) {
    r.log(
      `step ${i + 1}: starting from fresh connections — closing ${r.current.toLocaleString('en-US')} first`,
    );
    await closeAll(r, i);
    // The server must have let the old sockets go (file descriptors, users) before new
    // ones arrive; then sweep.fresh_pause more (2 s unless the profile says otherwise).
    await r.funnel.sleep(r.profile.sweep?.fresh_pause ?? 2000);
  }
}

/**
 * Ramp up at the join rate, or close the connections the step no longer has. What the ramp
 * ended with; null when the step opened no connection.
 */
async function rampTo(r: StepRunner, step: StepToRun, w: StepWindow): Promise<RampOutcome | null> {
  const { index: i, plan } = step;
  r.live.enter(
    'ramp',
    plan.connections > r.current ? (plan.connections - r.current) / plan.joinRatePerS : null,
  );
  const burst = r.burstWarning?.(plan) ?? null;
  if (burst) r.log(`warning: step ${i + 1}: ${burst}`);
  r.log(
    `step ${i + 1}${r.stepsSuffix}: ${plan.label} — ramp ${r.current.toLocaleString('en-US')} → ${plan.connections.toLocaleString('en-US')} connections at ${plan.joinRatePerS}/s`,
  );
  const at = r.schedule?.[i];
  if (at && at.rampStartMs > nowMs()) await r.funnel.sleep(at.rampStartMs - nowMs());
  let outcome: RampOutcome | null = null;
  if (plan.connections > r.current) {
    w.rampStart = Math.max(at?.rampStartMs ?? 0, nowMs() + 50);
    // Bounded: every connection either joins, fails, or times out after join_timeout.
    const rampBudgetMs =
      ((plan.connections - r.current) / plan.joinRatePerS) * 1000 +
      r.profile.target.join_timeout * 2 +
      10_000;
    const ramp = await r.funnel.race(
      Promise.race([
        r.pool.ramp(i, r.current, plan.connections, w.rampStart),
        timeoutAfter(
          rampBudgetMs,
          `ramp did not finish within ${Math.round(rampBudgetMs / 1000)} s`,
        ),
      ]),
    );
    // In a search past its first step a server that refused every join answered the step: it
    // is measured (broken, the rejection quoted) and the search stops on it.
    if (ramp.joined === 0 && !(r.refusalIsAStep?.(i) && refusedByServer(ramp.errors)))
      throw new Abort('aborted', `${NO_CONNECTION_COULD_JOIN}: ${topError(ramp.errors)}`);
    if (ramp.joined === 0)
      r.log(`step ${i + 1}: no connection could join: ${topError(ramp.errors)}`);
    outcome = { target: plan.connections, joinRatePerS: plan.joinRatePerS, ...ramp };
  } else if (plan.connections < r.current) {
    const closedAt = nowMs();
    r.pool.broadcast({ type: 'shrink', step: i, toConn: plan.connections });
    await closedDown(r, plan.connections, closedAt);
  }
  r.current = plan.connections;
  w.rampEnd = nowMs();
  return outcome;
}

/**
 * The step ends with its ramp (StepSettings.stopAfterRamp gave `why`): no warm-up, no sends, no
 * drain; what the processes measured is collected at once and the step is kept as cut short
 * before its steady window, its figures those of the ramp.
 */
async function endAfterRamp(
  r: StepRunner,
  i: number,
  w: StepWindow,
  why: string,
): Promise<StepRun> {
  r.log(`step ${i + 1}: ${STOPPED_EARLY} after its ramp — ${why}`);
  await secondAfterRampWritten(r, w.rampEnd);
  w.steadyStart = w.rampEnd;
  w.steadyEnd = w.rampEnd;
  w.drainEnd = w.rampEnd;
  const collected = await r.funnel.race(r.pool.collect(i));
  return {
    window: w,
    collected,
    inserts: null,
    complete: false,
    abort: null,
    cut: {
      by: `${STOPPED_EARLY} after its ramp: ${why}`,
      phase: 'warmup',
      collected: true,
      collect_wait_ms: 0,
    },
  };
}

/** The steady window: the processes' sends and the coordinator's inserts, on one schedule. */
async function steady(
  r: StepRunner,
  step: StepToRun,
  w: StepWindow,
  run: { inserts: InsertRun | null; insertResult: StepRun['inserts'] },
): Promise<void> {
  const { index: i, plan } = step;
  r.live.enter('steady', plan.durationMs / 1000);
  const at = r.schedule?.[i];
  if (at && at.steadyStartMs > nowMs() + 100)
    r.log(
      `step ${i + 1}: sends start at ${new Date(at.steadyStartMs).toISOString()} with every segment's`,
    );
  else if (at)
    r.log(
      `warning: step ${i + 1}: this segment is ${((nowMs() + 100 - at.steadyStartMs) / 1000).toFixed(1)} s behind the shared schedule`,
    );
  w.steadyStart = Math.max(at?.steadyStartMs ?? 0, nowMs() + 100);
  w.steadyEnd = w.steadyStart + plan.durationMs;
  if (plan.inserts && plan.inserts.count > 0) {
    if (!r.dbConnectionString)
      throw new Abort(
        'aborted',
        `scenario ${r.profile.scenario} inserts rows but no database is known: set target.database_url (or run against the built-in server)`,
      );
    // Loaded here: only Postgres Changes steps insert, and the database client costs every other
    // run its start-up.
    const { startInserts } = await import('../load/inserts.js');
    run.inserts = startInserts({
      traffic: plan.inserts,
      step: i,
      startMs: w.steadyStart,
      durationMs: plan.durationMs,
      connectionString: r.dbConnectionString,
      lateThresholdMs: r.profile.load.late_threshold,
      mine: r.insertsMine,
    });
  }
  const sendsDone = r.pool.send(i, w.steadyStart);
  await r.funnel.sleep(w.steadyEnd - nowMs());
  await r.funnel.race(
    Promise.race([sendsDone, timeoutAfter(plan.durationMs + 5000, 'senders did not finish')]),
  );
  if (run.inserts)
    run.insertResult = await r.funnel.race(
      Promise.race([
        run.inserts.done,
        timeoutAfter(plan.durationMs + 15_000, 'database inserts did not finish'),
      ]),
    );
}

/** The step's phases in order; an abort mid-step keeps what the processes still hand over. */
export async function runStepPhases(r: StepRunner, step: StepToRun): Promise<StepRun> {
  const i = step.index;
  const w: StepWindow = {
    rampStart: nowMs(),
    rampEnd: 0,
    steadyStart: 0,
    steadyEnd: 0,
    drainEnd: 0,
  };
  const run: { inserts: InsertRun | null; insertResult: StepRun['inserts'] } = {
    inserts: null,
    insertResult: null,
  };
  // Every phase ran once the drain ended; an abort while collecting keeps the step complete.
  let complete = false;
  try {
    // Closing the previous step's connections is part of this step's ramp: were it still
    // labelled the previous step's drain, its last second (none joined, none open) would read
    // as a server that dropped everyone.
    r.live.enter('ramp', null);
    await resetConnections(r, step);
    const ramp = await rampTo(r, step, w);
    const stop = ramp ? (r.stopAfterRamp?.(i, ramp) ?? null) : null;
    if (stop !== null) return await endAfterRamp(r, i, w, stop);
    if (r.profile.load.warmup > 0) {
      r.live.enter('warmup', r.profile.load.warmup / 1000);
      await r.funnel.sleep(r.profile.load.warmup);
    }
    await steady(r, step, w, run);
    r.live.enter('drain', r.profile.load.drain / 1000);
    await drain(r.timeline, {
      steadyEndMs: w.steadyEnd,
      settleMs: r.profile.load.settle,
      maxMs: r.profile.load.drain,
      sleep: (ms) => r.funnel.sleep(ms),
    });
    w.drainEnd = nowMs();
    complete = true;
    const collected = await r.funnel.race(r.pool.collect(i));
    return { window: w, collected, inserts: run.insertResult, complete, abort: null, cut: null };
  } catch (e) {
    if (!(e instanceof Abort)) throw e;
    const phase = r.live.phase;
    w.rampEnd ||= nowMs();
    w.steadyStart ||= w.rampEnd;
    w.steadyEnd = Math.min(w.steadyEnd || nowMs(), nowMs());
    w.drainEnd = nowMs();
    // Keep what the workers have, if they still answer; the step is kept either way.
    const waitMs =
      e.status === 'interrupted' ? COLLECT_WAIT_MS.interrupted : COLLECT_WAIT_MS.aborted;
    const { collected, unanswered } = await collectAfterAbort(r, i, waitMs);
    if (run.inserts && !run.insertResult) {
      run.inserts.stop();
      run.insertResult = await withinOrNull(run.inserts.done, 5000);
    }
    // A process that did not answer leaves the step without its part: never a complete step.
    if (unanswered.length > 0) complete = false;
    const cut: StepCutShort | null = complete
      ? null
      : {
          by: e.by,
          phase,
          collected: collected !== null,
          collect_wait_ms: waitMs,
          ...(unanswered.length > 0 ? { unanswered } : {}),
        };
    return { window: w, collected, inserts: run.insertResult, complete, abort: e, cut };
  }
}

/**
 * The collect after an abort, within `waitMs`: the answers of the processes that replied (null
 * when none did), and those that did not while others did.
 */
async function collectAfterAbort(
  r: StepRunner,
  i: number,
  waitMs: number,
): Promise<{ collected: StepCollected[] | null; unanswered: Collection['unanswered'] }> {
  const { replies, unanswered } = await r.pool.collectWithin(i, waitMs);
  const s = waitMs / 1000;
  if (replies.length === 0) {
    r.log(
      `step ${i + 1}: the generator processes did not answer the collect within ${s} s: the step keeps what their per-second lines said`,
    );
    return { collected: null, unanswered: [] };
  }
  if (unanswered.length > 0) r.log(`step ${i + 1}: ${unansweredWords(unanswered, s)}`);
  return { collected: replies, unanswered };
}
