/**
 * The coordinator of a run: starts the target (the built-in server when the profile names no
 * URL), the generator processes and the samplers; walks the steps (ramp at the join rate,
 * warm-up, steady sends, drain); builds each step's result with its verdict; and writes the
 * run directory as it goes. Any way the run ends (done, aborted, interrupted) leaves
 * result.json, summary.md and timeseries.ndjson readable.
 */
import { secondLimitsOf } from '../model/second-limit.js';
import { isLoopbackHost } from '../client/url.js';
import type { GeneratorPlan } from '../generator/limits.js';
import { pin } from '../load/pool.js';
import { nowMs } from '../measure/clock.js';
import { metricsUrlOf } from '../monitor/gauges.js';
import { describeHost } from '../monitor/host.js';
import { redactText } from '../redact/redact.js';
import { Abort, interruptAbort } from './abort.js';
import { openShard, segmentStart, startPool } from './generator-start.js';
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
import { contextOf, writeShard, type RunContext, type Started } from './run-context.js';
import { walkTheSteps } from './walk-start.js';
import type { RunState } from './run-result.js';
import { StepHealth } from './step-health.js';
import { reconnectGiveUpMs } from '../generator/reconnect.js';
import { removeDeadRunLeftovers } from './target.js';
import { setUpTarget, type TargetSetup } from './target-setup.js';
import { testFault } from './test-fault.js';
import { Timeline } from '../figures/timeline.js';

export { type PhaseClock, type RunObserver, type RunOptions, type RunOutcome };

/**
 * How long the built-in server gets for its orderly shutdown after an interrupt before its group is
 * killed.
 */
const INTERRUPT_STOP_GRACE_MS = 2_500;

export async function runBenchmark(opts: RunOptions): Promise<RunOutcome> {
  const ctx = contextOf(opts);
  const { signals, output } = ctx.parts;
  const { state, result, writer } = ctx.record;
  const { funnel, started } = ctx.live;
  // A run directory that can no longer be written (a full disk) ends the run like any abort.
  writer.onFailure = (line) => funnel.abort('aborted', line);
  ctx.record.save();
  signals.observer?.start?.(result);
  // Everything that can end the run early funnels into one abort.
  const onSignal = () => funnel.abortWith(interruptAbort(signals.signal));
  // A signal received during start-up (the profile's load, cli/interrupt) ends the run before
  // it starts anything, with its result written all the same.
  if (signals.signal?.aborted) onSignal();
  else signals.signal?.addEventListener('abort', onSignal, { once: true });
  try {
    await conduct(ctx);
    if (state.status === 'running') state.status = 'completed';
  } catch (e) {
    state.status = e instanceof Abort ? e.status : 'aborted';
    state.abortReason = e instanceof Abort ? e.message : redactText((e as Error).message);
  } finally {
    ctx.live.progress.break();
    signals.signal?.removeEventListener('abort', onSignal);
    await stopStarted(started, state);
    result.finished_at = new Date().toISOString();
    ctx.record.save();
    writeShard(ctx.record, started);
  }
  if (state.abortReason)
    output.log(`run ${state.status}: ${state.abortReason}${notReached(state, result)}`);
  return { result, dir: writer.dir, exitCode: exitCodeOf(state), release: writer.release };
}

/** The run's stages in order: host, target, generator, timeline and samplers, pool, steps. */
async function conduct(ctx: RunContext): Promise<void> {
  const { parts, record, live } = ctx;
  const { profile } = parts.profile;
  const { log } = parts.output;
  const { result } = record;
  const { started, funnel } = live;
  const searching = parts.search.nextStep !== undefined;
  // The generator host (systeminformation; os figures stay if it cannot answer).
  // Raced: an interrupt before the run starts anything ends it here.
  result.generator.host = {
    ...result.generator.host,
    ...(await funnel.race(describeHost().catch(() => ({})))),
  };
  await removeLeftovers(log);
  const target = await setUpTarget({
    profile,
    target: parts.target,
    log,
    signal: parts.signals.signal,
    writer: record.writer,
    funnel,
    result,
    onServer: (server) => (started.server = server),
  });
  const gen = planGenerator(ctx, target);
  const link = await startLink(ctx, gen, target);
  // A search past its first step measures a ramp the server refused outright (sweep/plan
  // stops on it, the rejection quoted) instead of ending the run.
  const health = new StepHealth({
    refusalIsAStep: () => searching && live.phase.step > 0,
  });
  const timeline = openTimeline(ctx, gen, target, health);
  await startSamplers(ctx, target, timeline);
  const builtin = target.server !== null;
  const shard = openShard({
    profile: parts.profile,
    segment: parts.load.segment,
    workers: gen.workers,
    builtin,
    result,
  });
  const pool = await startPool({
    profile,
    load: parts.load,
    searching,
    log,
    plans: ctx.plan.plans,
    gen,
    target,
    timeline,
    shard,
    funnel,
    link,
    onPool: (p) => (started.pool = p),
  });
  testFault('pool');
  // Written at the run's end from here on, as a segment's that started (a start that failed leaves
  // no shard).
  if (shard) started.shard = shard;
  await segmentStart({ segment: parts.load.segment, searching, log, funnel });
  await walkTheSteps(ctx, { pool, timeline, gen, target, health });
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
  { parts, record, live }: Pick<RunContext, 'parts' | 'record' | 'live'>,
  gen: GeneratorPlan,
  target: TargetSetup,
): Promise<LinkSetup | null> {
  const spec = parts.profile.profile.generator.link;
  if (!spec) return null;
  // Kept as soon as it exists, so that an abort during the set-up still stops it.
  const settingUp = setUpLink(spec, {
    workers: gen.workers,
    socketUrl: target.socketUrl,
    sourceAddresses: gen.sourceAddresses,
  }).then((l) => (live.started.link = l));
  const link = await live.funnel.race(settingUp);
  record.result.generator.link = link.record;
  parts.output.log(`generator link: ${describeLink(link.record)}`);
  record.save();
  return link;
}

/** The generator's processes and source addresses, logged with the target line; saved. */
function planGenerator(
  { parts, plan, record }: Pick<RunContext, 'parts' | 'plan' | 'record'>,
  target: TargetSetup,
): GeneratorPlan {
  const { plans, maxConnections } = plan;
  const { profile } = parts.profile;
  const { log } = parts.output;
  const { segment } = parts.load;
  const serverCpus = parts.target.serverCpus ?? null;
  const generatorCpus = parts.load.generatorCpus ?? null;
  const gen = setUpGenerator({
    maxConnections,
    requestedWorkers: parts.load.workers ?? profile.load.workers,
    requestedSourceAddresses: profile.load.source_addresses,
    loopbackTarget: isLoopbackHost(target.targetUrl),
    link: profile.generator.link !== undefined,
    generatorCpus,
    plans,
    cores: plan.generatorCores,
    ...(segment ? { segment: { index: segment.index, count: segment.count } } : {}),
    result: record.result,
    log,
  });
  const stepsLabel = parts.search.nextStep
    ? 'steps decided as it goes'
    : `${plans.length} step${plans.length === 1 ? '' : 's'}`;
  log(
    `target: ${redactText(target.socketUrl)} · ${profile.scenario} · ${stepsLabel} · up to ${maxConnections.toLocaleString('en-US')} connections${serverCpus ? ` · server on CPUs ${serverCpus}` : ''}`,
  );
  for (const w of gen.warnings) log(`warning: ${w}`);
  if (generatorCpus) pin(process.pid, generatorCpus);
  record.save();
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
  const { plans } = ctx.plan;
  const { writer } = ctx.record;
  const { progress, funnel, phase: live } = ctx.live;
  const { profile } = ctx.parts.profile;
  const { observer } = ctx.parts.signals;
  const searching = ctx.parts.search.nextStep !== undefined;
  const rideOutMs = (step: number) => {
    const policy = plans[step]?.reconnect;
    return policy ? reconnectGiveUpMs(policy, profile.target.join_timeout) : 0;
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
        steps: searching ? 0 : plans.length,
      };
      const limits = secondLimitsOf(ctx.record.result, target.basis);
      observer?.second(rec, plans[live.step]?.connections ?? 0, clock, limits);
      progress.update(rec.point, {
        steps: clock.steps,
        target: plans[live.step]?.connections ?? 0,
        elapsedInPhaseS: clock.elapsedS,
        phaseLengthS: clock.lengthS,
        ...limits,
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
  { parts, plan, live }: Pick<RunContext, 'parts' | 'plan' | 'live'>,
  target: TargetSetup,
  timeline: Timeline,
): Promise<void> {
  const { samplers } = live.started;
  const { profile } = parts.profile;
  const { server } = target;
  await samplers.startServer(target.sampler, (x) => timeline.addServerSample(x));
  await samplers.startHost(isLoopbackHost(target.targetUrl));
  // Steps that insert rows (Postgres Changes) report the server's poller figures when it exposes
  // them.
  if (plan.plans.some((p) => p.inserts !== null)) {
    samplers.startGauges(
      server ? metricsUrlOf(server.url) : (profile.target.metrics_url ?? null),
      server ? undefined : profile.target.metrics_token,
    );
  }
  testFault('samplers');
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

/** What an interrupted run never reached, for its last line: nothing when a step ran. */
function notReached(state: RunState, result: RunOutcome['result']): string {
  return state.status === 'interrupted' && result.steps.length === 0
    ? ' — interrupted before the first step: nothing measured'
    : '';
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
