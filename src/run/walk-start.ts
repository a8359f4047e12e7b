/**
 * What the walk of the steps runs on, made once the generator processes are up: the step runner
 * (run/step-phases), what the segment sampled beside its processes (read into each step's result
 * and its shard), and how a search's recovery probe reaches the target between steps; then the
 * walk itself (run/walk-steps).
 */
import { burstWarning } from '../load/burst-plan.js';
import type { GeneratorPlan } from '../generator/limits.js';
import type { SecondStats } from '../generator/ipc.js';
import { insertSegmentOf } from '../generator/segment.js';
import type { WorkerPool } from '../load/pool.js';
import type { Timeline } from '../figures/timeline.js';
import { ArrivalWatch } from '../recovery/arrivals.js';
import { probePathOf } from '../recovery/paths.js';
import type { ShardResources } from '../shard/format.js';
import { writeShard, type RunContext, type Started } from './run-context.js';
import { segmentSchedule } from './segment-schedule.js';
import type { StepHealth } from './step-health.js';
import type { StepRunner } from './step-phases.js';
import type { TargetSetup } from './target-setup.js';
import { walkSteps } from './walk-steps.js';

/** What the run has made by the time its steps start. */
export interface Made {
  pool: WorkerPool;
  timeline: Timeline;
  gen: GeneratorPlan;
  target: TargetSetup;
  health: StepHealth;
}

/** The run's steps, walked on what the run made; result.json and the shard saved after each. */
export async function walkTheSteps(ctx: RunContext, made: Made): Promise<void> {
  const { parts, record, live } = ctx;
  const { started } = live;
  const { pool, gen, target } = made;
  const runner = stepRunnerOf(ctx, made);
  const resources = resourcesOf(started, target, pool);
  started.shard?.resources(resources);
  await walkSteps({
    profile: parts.profile.profile,
    search: parts.search,
    signals: parts.signals,
    plans: ctx.plan.plans,
    record: {
      result: record.result,
      state: record.state,
      save: (artifacts = false) => {
        record.saveWith({ artifacts });
        writeShard(record, started);
      },
    },
    runner,
    health: made.health,
    progress: live.progress,
    shard: {
      recorder: started.shard,
      resources,
      workers: gen.workers,
      segments: parts.load.segment?.count ?? 1,
      builtin: target.server !== null,
    },
    probe: probeOf(ctx, target, pool),
  });
}

/** What was sampled beside the processes: the samplers' live arrays, read at each step's end. */
function resourcesOf(started: Started, target: TargetSetup, pool: WorkerPool): ShardResources {
  const s = started.samplers;
  return {
    serverSamples: s.serverSamples,
    serverSource: target.sampler?.source ?? null,
    serverBasis: target.basis,
    gaugeSamples: s.gaugeSamples,
    hostSamples: s.hostSamples,
    generatorIdleRssMb: pool.idleRssMb,
    serverIdleRssMb: s.serverIdleRssMb,
  };
}

/** What every step's phases run on: the pool, the timeline, the abort, the segment's share. */
function stepRunnerOf(
  { parts, plan, live }: Pick<RunContext, 'parts' | 'plan' | 'live'>,
  made: { pool: WorkerPool; timeline: Timeline; gen: GeneratorPlan; target: TargetSetup },
): StepRunner {
  const { plans } = plan;
  const { profile } = parts.profile;
  const { pool, gen, target } = made;
  const seg = parts.load.segment;
  const searching = parts.search.nextStep !== undefined;
  return {
    pool,
    timeline: made.timeline,
    funnel: live.funnel,
    live: live.phase,
    profile,
    log: parts.output.log,
    dbConnectionString:
      target.server?.databaseConnectionString ?? profile.target.database_url ?? null,
    stepsSuffix: searching ? '' : `/${plans.length}`,
    current: 0,
    // Each insert stream's rows are made by one segment (all of them on one machine).
    insertsMine: (stream) => insertSegmentOf(stream, seg?.count ?? 1) === (seg?.index ?? 0),
    schedule:
      seg?.startAtMs != null && !searching ? segmentSchedule(seg.startAtMs, profile, plans) : null,
    refusalIsAStep: searching ? (i) => i > 0 : undefined,
    stopAfterRamp: parts.search.stopAfterRamp,
    burstWarning: (step) =>
      burstWarning(
        step,
        gen.workers,
        plan.generatorCores,
        seg ? { index: seg.index, count: seg.count } : undefined,
      ),
  };
}

/**
 * How a sweep's recovery probe reaches the target between steps, and what the step's members
 * still receive (the processes' per-second lines).
 */
function probeOf(
  { parts, live }: Pick<RunContext, 'parts' | 'live'>,
  target: TargetSetup,
  pool: WorkerPool,
) {
  const { profile } = parts.profile;
  const arrivals = new ArrivalWatch();
  if (parts.search.nextStep) pool.on('second', (s: SecondStats) => arrivals.add(s));
  return {
    arrivals,
    socketUrl: target.socketUrl,
    headers: target.headers,
    vsn: profile.target.vsn,
    tokens: target.tokens,
    tls: target.tls,
    joinTimeoutMs: profile.target.join_timeout,
    path: probePathOf(
      profile,
      target.server?.databaseConnectionString ?? profile.target.database_url ?? null,
    ),
    sleep: (ms: number) => live.funnel.sleep(ms),
  };
}
