/**
 * The coordinator of a run: starts the target (the built-in server when the profile names no
 * URL), the generator processes and the samplers; walks the steps (ramp at the join rate,
 * warm-up, steady sends, drain); builds each step's result with its verdict; and writes the
 * run directory as it goes. Any way the run ends (done, aborted, interrupted) leaves
 * result.json, summary.md and timeseries.ndjson readable.
 */
import { isLoopbackHost } from '../client/url.js';
import { burstWarning } from '../load/burst-plan.js';
import type { GeneratorPlan } from '../generator/limits.js';
import { pin, type WorkerPool } from '../load/pool.js';
import { insertSegmentOf } from '../generator/segment.js';
import { nowMs } from '../measure/clock.js';
import { metricsUrlOf } from '../monitor/gauges.js';
import { describeHost } from '../monitor/host.js';
import { redactText } from '../redact/redact.js';
import { SHARD_FILE, type ShardResources } from '../shard/format.js';
import { Abort, interruptAbort } from './abort.js';
import { startPool, startShard } from './generator-start.js';
import { describeLink } from '../link/link-config.js';
import { setUpLink, type LinkSetup } from '../link/link-setup.js';
import { removeDeadLinkNamespaces } from '../link/netem.js';
import { EXIT } from '../util/exit-codes.js';
import { setUpGenerator } from './generator-setup.js';
import {
  type PhaseClock,
  type RunObserver,
  type RunOptions,
  type RunOutcome,
} from './run-options.js';
import { contextOf, type RunContext, type Started } from './run-context.js';
import type { RunState } from './run-result.js';
import { segmentSchedule } from './segment-schedule.js';
import { StepHealth } from './step-health.js';
import { reconnectGiveUpMs } from '../generator/reconnect.js';
import type { StepRunner } from './step-phases.js';
import { removeDeadRunLeftovers } from './target.js';
import { setUpTarget, type TargetSetup } from './target-setup.js';
import { testFault } from './test-fault.js';
import { Timeline } from '../figures/timeline.js';
import { walkSteps } from './walk-steps.js';
import { probePathOf } from '../recovery/paths.js';
import { ArrivalWatch } from '../recovery/arrivals.js';
import type { SecondStats } from '../generator/ipc.js';

export { type PhaseClock, type RunObserver, type RunOptions, type RunOutcome };

/**
 * How long the built-in server gets for its orderly shutdown after an interrupt before its group is
 * killed.
 */
const INTERRUPT_STOP_GRACE_MS = 2_500;

export async function runBenchmark(opts: RunOptions): Promise<RunOutcome> {
  const ctx = contextOf(opts);
  const { state, result, writer, started } = ctx;
  // A run directory that can no longer be written (a full disk) ends the run like any abort.
  writer.onFailure = (line) => ctx.funnel.abort('aborted', line);
  ctx.save();
  opts.observer?.start?.(result);
  // Everything that can end the run early funnels into one abort.
  const onSignal = () => ctx.funnel.abortWith(interruptAbort(opts.signal));
  opts.signal?.addEventListener('abort', onSignal, { once: true });
  try {
    await conduct(ctx);
    if (state.status === 'running') state.status = 'completed';
  } catch (e) {
    state.status = e instanceof Abort ? e.status : 'aborted';
    state.abortReason = e instanceof Abort ? e.message : redactText((e as Error).message);
  } finally {
    ctx.progress.break();
    opts.signal?.removeEventListener('abort', onSignal);
    await stopStarted(started, state);
    result.finished_at = new Date().toISOString();
    ctx.save();
    writeShard(ctx);
  }
  if (state.abortReason) opts.log(`run ${state.status}: ${state.abortReason}`);
  return { result, dir: writer.dir, exitCode: exitCodeOf(state), release: writer.release };
}

/** The run's stages in order: host, target, generator, timeline and samplers, pool, steps. */
async function conduct(ctx: RunContext): Promise<void> {
  const { opts, result, started, funnel } = ctx;
  // The generator host (systeminformation; os figures stay if it cannot answer).
  result.generator.host = {
    ...result.generator.host,
    ...(await describeHost().catch(() => ({}))),
  };
  await removeLeftovers(opts.log);
  const target = await setUpTarget({
    opts,
    writer: ctx.writer,
    funnel,
    serverCpus: ctx.serverCpus,
    result,
    onServer: (server) => (started.server = server),
  });
  const gen = planGenerator(ctx, target);
  const link = await startLink(ctx, gen, target);
  // A search past its first step measures a ramp the server refused outright (sweep/plan
  // stops on it, the rejection quoted) instead of ending the run.
  const health = new StepHealth({
    refusalIsAStep: () => opts.nextStep !== undefined && ctx.live.step > 0,
  });
  const timeline = openTimeline(ctx, gen, target, health);
  await startSamplers(ctx, target, timeline);
  const pool = await startPool({
    opts,
    plans: ctx.plans,
    gen,
    generatorCpus: ctx.generatorCpus,
    target,
    timeline,
    funnel,
    link,
    onPool: (p) => (started.pool = p),
  });
  testFault('pool');
  const builtin = target.server !== null;
  await startShard({
    opts,
    pool,
    workers: gen.workers,
    builtin,
    result,
    funnel,
    onShard: (s) => (started.shard = s),
  });
  const runner = stepRunnerOf(ctx, { pool, timeline, gen, target });
  // What was sampled beside the processes: the samplers' live arrays, read at each step's end.
  const s = started.samplers;
  const resources: ShardResources = {
    serverSamples: s.serverSamples,
    serverSource: target.sampler?.source ?? null,
    serverBasis: target.basis,
    gaugeSamples: s.gaugeSamples,
    hostSamples: s.hostSamples,
    generatorIdleRssMb: runner.pool.idleRssMb,
    serverIdleRssMb: s.serverIdleRssMb,
  };
  started.shard?.resources(resources);
  await walkSteps({
    opts,
    plans: ctx.plans,
    result,
    state: ctx.state,
    runner,
    health,
    gen,
    resources,
    save: (artifacts = false) => {
      ctx.saveWith({ artifacts });
      writeShard(ctx);
    },
    shard: started.shard,
    progress: ctx.progress,
    builtin,
    probe: probeOf(ctx, target, pool),
  });
}

/** What killed runs left under the temp directory, removed. */
async function removeLeftovers(log: (line: string) => void): Promise<void> {
  // Emulated-link namespaces (src/link/netem) of coordinators killed with SIGKILL, too.
  const removed = [...(await removeDeadRunLeftovers()), ...removeDeadLinkNamespaces()];
  if (removed.length)
    log(
      `removed ${removed.length} leftover${removed.length === 1 ? '' : 's'} of runs that are gone: ${removed.join(', ')}`,
    );
}

/** The emulated client link (generator.link) in the generator's path, recorded; null: none. */
async function startLink(
  ctx: RunContext,
  gen: GeneratorPlan,
  target: TargetSetup,
): Promise<LinkSetup | null> {
  const spec = ctx.opts.profile.generator.link;
  if (!spec) return null;
  // Kept as soon as it exists, so that an abort during the set-up still stops it.
  const settingUp = setUpLink(spec, {
    workers: gen.workers,
    socketUrl: target.socketUrl,
    sourceAddresses: gen.sourceAddresses,
  }).then((l) => (ctx.started.link = l));
  const link = await ctx.funnel.race(settingUp);
  ctx.result.generator.link = link.record;
  ctx.opts.log(`generator link: ${describeLink(link.record)}`);
  ctx.save();
  return link;
}

/** The generator's processes and source addresses, logged with the target line; saved. */
function planGenerator(ctx: RunContext, target: TargetSetup): GeneratorPlan {
  const { opts, plans, maxConnections, serverCpus, generatorCpus } = ctx;
  const { profile, log } = opts;
  const gen = setUpGenerator({
    maxConnections,
    requestedWorkers: opts.workers ?? profile.load.workers,
    requestedSourceAddresses: profile.load.source_addresses,
    loopbackTarget: isLoopbackHost(target.targetUrl),
    link: profile.generator.link !== undefined,
    generatorCpus,
    plans,
    cores: ctx.generatorCores,
    ...(opts.segment ? { segment: { index: opts.segment.index, count: opts.segment.count } } : {}),
    result: ctx.result,
    log,
  });
  const stepsLabel = opts.nextStep
    ? 'steps decided as it goes'
    : `${plans.length} step${plans.length === 1 ? '' : 's'}`;
  log(
    `target: ${redactText(target.socketUrl)} · ${profile.scenario} · ${stepsLabel} · up to ${maxConnections.toLocaleString('en-US')} connections${serverCpus ? ` · server on CPUs ${serverCpus}` : ''}`,
  );
  for (const w of gen.warnings) log(`warning: ${w}`);
  if (generatorCpus) pin(process.pid, generatorCpus);
  ctx.save();
  testFault('generator');
  return gen;
}

/**
 * The timeline of merged seconds: each one appended to timeseries.ndjson, shown to the observer
 * and the progress line, and checked by the step's health watch (which may abort the run).
 */
function openTimeline(
  ctx: RunContext,
  gen: GeneratorPlan,
  target: TargetSetup,
  health: StepHealth,
): Timeline {
  const { opts, plans, live, writer, progress, funnel } = ctx;
  const rideOutMs = (step: number) => {
    const policy = plans[step]?.reconnect;
    return policy ? reconnectGiveUpMs(policy, opts.profile.target.join_timeout) : 0;
  };
  return new Timeline(
    gen.workers,
    () => ({ step: live.step, phase: live.phase }),
    target.basis,
    (rec) => {
      writer.appendTimeseries(rec.point);
      const clock: PhaseClock = {
        elapsedS: (nowMs() - live.phaseStartMs) / 1000,
        lengthS: live.phaseLengthS,
        steps: opts.nextStep ? 0 : plans.length,
      };
      opts.observer?.second(rec, plans[live.step]?.connections ?? 0, clock);
      progress.update(rec.point, {
        steps: clock.steps,
        target: plans[live.step]?.connections ?? 0,
        elapsedInPhaseS: clock.elapsedS,
        phaseLengthS: clock.lengthS,
      });
      // Before the first step's plan exists (a sweep's recovery probe) there is nothing to check.
      const why = plans[live.step]
        ? health.check(rec, live.phase, plans[live.step].connections, rideOutMs(live.step))
        : null;
      if (why) funnel.abort('aborted', why);
    },
  );
}

/** Server, generator-host and (for steps that insert rows) server-gauge sampling, every second. */
async function startSamplers(
  ctx: RunContext,
  target: TargetSetup,
  timeline: Timeline,
): Promise<void> {
  const { samplers } = ctx.started;
  const { profile } = ctx.opts;
  const { server } = target;
  await samplers.startServer(target.sampler, (x) => timeline.addServerSample(x));
  await samplers.startHost(isLoopbackHost(target.targetUrl));
  // Steps that insert rows (Postgres Changes) report the server's poller figures when it exposes
  // them.
  if (ctx.plans.some((p) => p.inserts !== null)) {
    samplers.startGauges(
      server ? metricsUrlOf(server.url) : (profile.target.metrics_url ?? null),
      server ? undefined : profile.target.metrics_token,
    );
  }
  testFault('samplers');
}

/** What every step's phases run on: the pool, the timeline, the abort, the segment's share. */
function stepRunnerOf(
  ctx: RunContext,
  parts: { pool: WorkerPool; timeline: Timeline; gen: GeneratorPlan; target: TargetSetup },
): StepRunner {
  const { opts, plans, funnel, live } = ctx;
  const { profile, log } = opts;
  const { pool, gen, target } = parts;
  const seg = opts.segment;
  return {
    pool,
    timeline: parts.timeline,
    funnel,
    live,
    profile,
    log,
    dbConnectionString:
      target.server?.databaseConnectionString ?? profile.target.database_url ?? null,
    stepsSuffix: opts.nextStep ? '' : `/${plans.length}`,
    current: 0,
    // Each insert stream's rows are made by one segment (all of them on one machine).
    insertsMine: (stream) => insertSegmentOf(stream, seg?.count ?? 1) === (seg?.index ?? 0),
    schedule:
      seg?.startAtMs != null && !opts.nextStep
        ? segmentSchedule(seg.startAtMs, profile, plans)
        : null,
    refusalIsAStep: opts.nextStep ? (i) => i > 0 : undefined,
    burstWarning: (plan) =>
      burstWarning(
        plan,
        gen.workers,
        ctx.generatorCores,
        seg ? { index: seg.index, count: seg.count } : undefined,
      ),
  };
}

/**
 * How a sweep's recovery probe reaches the target between steps, and what the step's members
 * still receive (the processes' per-second lines).
 */
function probeOf(ctx: RunContext, target: TargetSetup, pool: WorkerPool) {
  const { profile } = ctx.opts;
  const arrivals = new ArrivalWatch();
  if (ctx.opts.nextStep) pool.on('second', (s: SecondStats) => arrivals.add(s));
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
    sleep: (ms: number) => ctx.funnel.sleep(ms),
  };
}

/** A segment's shard.json, with the run's status as it stands. */
function writeShard(ctx: RunContext): void {
  const { state, result, writer } = ctx;
  ctx.started.shard?.write(
    writer.path(SHARD_FILE),
    state.status,
    state.abortReason,
    result.finished_at,
  );
}

/** Stops what the run started: samplers, then the generator and the server. */
async function stopStarted(started: Started, state: RunState): Promise<void> {
  started.samplers.stop();
  if (state.status === 'interrupted') {
    // The user wants out within seconds: generator and server stop side by side, on short graces.
    await Promise.all([
      started.pool?.stop(1_500).then(() => started.link?.stop()),
      started.server?.stop(INTERRUPT_STOP_GRACE_MS),
    ]);
  } else {
    if (started.pool) await started.pool.stop();
    await started.link?.stop();
    if (started.server) await started.server.stop();
  }
}

/** The exit code of a run by how it ended (the README's table). */
function exitCodeOf(state: RunState): number {
  return state.status === 'aborted'
    ? state.stoppedByThreshold
      ? EXIT.thresholds
      : EXIT.aborted
    : state.status === 'interrupted'
      ? EXIT.interrupted
      : EXIT.ok;
}
