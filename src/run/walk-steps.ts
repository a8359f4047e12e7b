/**
 * The steps of a run in order: the profile's, then (sweeps) those decided as the run goes. Each
 * step's phases (run/step-phases), its result built by the one function `rtcap merge` uses too
 * (shard/step-result), the log line, the thresholds that may stop the run, result.json saved.
 */
import { abortReason as thresholdAbortReason } from '../model/thresholds.js';
import type { Profile } from '../profile/schema.js';
import type { RunResult, StepResult } from '../result/result.js';
import { getScenario } from '../scenarios/index.js';
import type { StepPlan } from '../scenarios/types.js';
import type { ShardResources, ShardStep } from '../shard/format.js';
import type { ShardRecorder } from '../shard/record.js';
import { shardStepResult } from '../shard/step-result.js';
import type { Progress } from './progress.js';
import type { ProbeTarget } from '../recovery/probe.js';
import type { SearchPart, SignalsPart } from './run-options.js';
import type { RunState } from './run-result.js';
import type { StepHealth } from './step-health.js';
import { runStepPhases, type StepRun, type StepRunner } from './step-phases.js';

export interface WalkArgs {
  profile: Profile;
  /** A search's hooks: the next step, fresh connections, steps kept from before, annotations. */
  search: SearchPart;
  /** Who is shown each step as it ends. */
  signals: Pick<SignalsPart, 'observer' | 'onStep'>;
  plans: StepPlan[];
  /** The run's result, how it stands, and how it is saved. */
  record: {
    result: RunResult;
    state: RunState;
    /** Saves the result; `artifacts`: the report too (another step may follow). */
    save: (artifacts?: boolean) => void;
  };
  runner: StepRunner;
  health: StepHealth;
  progress: Progress;
  /** What a step's result is built from beside its measurements, and the segment's shard. */
  shard: {
    recorder: ShardRecorder | null;
    resources: ShardResources;
    workers: number;
    segments: number;
    builtin: boolean;
  };
  /** How a sweep's recovery probe reaches the target between steps. */
  probe: ProbeTarget & { sleep: (ms: number) => Promise<void> };
}

/**
 * The profile's steps, then (sweeps) the steps decided as the run goes: each step's phases,
 * its result, result.json saved. Stops after a step the run was aborted in.
 */
export async function walkSteps(args: WalkArgs): Promise<void> {
  const { profile, search, plans, runner } = args;
  const { result, state } = args.record;
  const scenario = getScenario(profile.scenario);
  // A resumed sweep numbers its new steps after the ones it keeps (profile.load.steps holds their
  // specs).
  for (let i = search.previousSteps?.length ?? 0; ; i++) {
    if (i >= profile.load.steps.length && !(await appendNextStep(args, i))) break;
    const plan = (plans[i] ??= scenario.plan(profile, i));
    runner.live.step = i;
    args.health.reset();
    const run: StepRun = await runStepPhases(runner, {
      index: i,
      plan,
      before: i > 0 ? plans[i - 1] : undefined,
      fresh: () => search.freshConnections?.(result, i) ?? false,
    });
    if (run.abort) {
      state.status = run.abort.status;
      state.abortReason = run.abort.message;
    }
    runner.timeline.flush();
    // A step cut short is kept whatever it got: with no answer from the processes, what their
    // per-second lines said (StepResult.cut_short.collected false).
    if (run.collected || run.cut) keepStep(args, i, plan, run);
    stopOnThresholds(profile, result, state);
    args.record.save(
      state.status === 'running' &&
        (search.nextStep !== undefined || i + 1 < profile.load.steps.length),
    );
    args.signals.onStep?.(result);
    if (state.status !== 'running') break;
  }
}

/** A sweep's next step, asked for with the result so far and sent to every process; false: none. */
async function appendNextStep(args: WalkArgs, index: number): Promise<boolean> {
  const { search, runner } = args;
  const spec = search.nextStep
    ? await runner.funnel.race(Promise.resolve(search.nextStep(args.record.result, args.probe)))
    : null;
  if (!spec) return false;
  args.profile.load.steps.push(spec);
  runner.pool.broadcast({ type: 'step', index, spec });
  return true;
}

/**
 * The step as a shard holds it, recorded; its result built by the same function rtcap merge
 * uses, annotated, kept, shown and logged.
 */
function keepStep(args: WalkArgs, index: number, plan: StepPlan, run: StepRun): void {
  const { search, runner, shard } = args;
  const { result } = args.record;
  const part: ShardStep = {
    step: index,
    window: run.window,
    complete: run.complete,
    ...(run.cut ? { cut: run.cut } : {}),
    collected: run.collected ?? [],
    inserts: run.inserts?.sends ?? [],
    insertStats: run.inserts?.stats ?? null,
  };
  shard.recorder?.step(part);
  const step = shardStepResult(part, {
    profile: args.profile,
    plan,
    timeline: runner.timeline,
    resources: [shard.resources],
    workers: shard.workers,
    segments: shard.segments,
    builtin: shard.builtin,
    previousSteps: result.steps,
  });
  search.annotateStep?.(step);
  result.steps.push(step);
  runner.timeline.forgetUntil(run.window.drainEnd + 1000);
  args.signals.observer?.step(step);
  args.progress.break();
  runner.log(stepLine(index, step));
}

/** The log line of a finished step: verdict, joins, delivery, latency, rate, first reason. */
function stepLine(index: number, step: StepResult): string {
  return (
    `step ${index + 1}: ${step.verdict} — joined ${step.connections.joined}/${step.connections.target}, delivery ${step.delivery_rate === null ? '—' : (step.delivery_rate * 100).toFixed(3) + ' %'}, ` +
    `first-receive p95 ${step.latency_ms.p95 ?? '—'} ms, ${step.rates.delivered_per_s ?? '—'} deliveries/s` +
    (step.verdict_reasons.length ? ` (${step.verdict_reasons[0]})` : '')
  );
}

/** abort_on_fail (k6): a threshold that already fails on a finished step stops the run here. */
function stopOnThresholds(profile: Profile, result: RunResult, state: RunState): void {
  const stopWhy =
    state.status === 'running'
      ? thresholdAbortReason(profile.thresholds, {
          steps: result.steps,
          scenario: profile.scenario,
        })
      : null;
  if (stopWhy) {
    state.status = 'aborted';
    state.abortReason = stopWhy;
    state.stoppedByThreshold = true;
  }
}
