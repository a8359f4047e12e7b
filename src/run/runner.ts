/**
 * The coordinator of a run: starts the target (the built-in server when the profile names no
 * URL), the generator processes and the samplers; walks the steps (ramp at the join rate,
 * warm-up, steady sends, drain); builds each step's result with its verdict; and writes the
 * run directory as it goes. Any way the run ends (done, aborted, interrupted) leaves
 * result.json, summary.md and timeseries.ndjson readable.
 */
import { nowMs } from '../measure/clock.js';
import { isLoopbackHost } from '../client/url.js';
import { errorLine, redactText } from '../redact/redact.js';
import { youngGenerationArgs } from '../load/young-generation.js';
import { WorkerPool, pin } from '../load/pool.js';
import type { GeneratorPlan } from '../load/limits.js';
import type { SecondStats } from '../load/ipc.js';
import { burstWarning, countCpuList } from '../load/burst-plan.js';
import { availableParallelism } from 'node:os';
import { metricsUrlOf } from '../monitor/gauges.js';
import { abortReason as thresholdAbortReason } from '../model/thresholds.js';
import type { Profile } from '../profile/schema.js';
import type { RunResult, StepResult } from '../result/result.js';
import { getScenario } from '../scenarios/index.js';
import type { StepPlan } from '../scenarios/types.js';
import { Abort, AbortFunnel } from './abort.js';
import { setUpGenerator } from './generator-setup.js';
import { LivePhase } from './live-state.js';
import { makeRunId, RunWriter } from './output.js';
import { Progress } from './progress.js';
import { initialResult, resultSaver, type RunState } from './run-result.js';
import { localServerOf, RunSamplers, serverSamplerFor } from './samplers.js';
import type { ProbeTarget } from './recovery-probe.js';
import { basisWarning, declaredBasis, readServerBasis } from '../monitor/server-basis.js';
import { StepHealth } from './step-health.js';
import { runStepPhases, type StepRun, type StepRunner } from './step-phases.js';
import {
  removeDeadRunLeftovers,
  StartCancelled,
  startBuiltinServer,
  type BuiltinServer,
} from './target.js';
import { describeHost } from '../monitor/host.js';
import {
  builtinConfigOf,
  checkMinting,
  socketOf,
  tlsOf,
  tokenConfigOf,
} from './target-connection.js';
import { Timeline, type SecondRecord } from './timeline.js';
import { SHARD_FILE } from '../shard/format.js';
import { segmentSchedule } from './segment-schedule.js';
import { insertSegmentOf } from '../load/segment.js';
import { profileHash, ShardRecorder } from '../shard/record.js';
import { shardStepResult } from '../shard/step-result.js';
import type { ShardResources, ShardStep } from '../shard/format.js';

export interface RunOptions {
  profile: Profile;
  profilePath: string | null;
  /** The resolved profile with secrets replaced, as stored in result.json. */
  redactedProfile: unknown;
  url?: string;
  outDir?: string;
  reportsDir?: string;
  workers?: number;
  serverCpus?: string | null;
  generatorCpus?: string | null;
  /** Log lines (stderr). */
  log: (line: string) => void;
  /** Live progress line; off in tests. */
  progress?: boolean;
  /** Interrupt (Ctrl-C): the run stops, keeps what it has and exits 130. */
  signal?: AbortSignal;
  renderSummary?: (r: RunResult) => string;
  /**
   * Computed before every write of result.json and stored as `result.analysis` (fits, knees,
   * capacity, advice).
   */
  analyze?: (r: RunResult) => unknown;
  /**
   * Writes the other artefacts (report.html, ...) into the run directory after a step that
   * another may follow, so a long run's report can be read as it goes. Not before the first
   * step (nothing to show) nor after the last: the caller renders the final artefacts once,
   * with the thresholds (cli/shared finishRun), and rendering them twice was a large part of
   * a short run's CPU.
   */
  renderArtifacts?: (r: RunResult, dir: string) => void;
  /** Called after each step with the result so far. */
  onStep?: (r: RunResult) => void;
  /** Watches the run as it goes (live metrics, `--metrics-port`). */
  observer?: RunObserver;
  /**
   * Steps decided at run time (sweeps): after the profile's steps, asked for the next one with
   * the result so far; null ends the run. `maxConnections` bounds what it may ask for, so the
   * generator can be sized up front.
   */
  nextStep?: (
    r: RunResult,
    target: ProbeTarget & { sleep: (ms: number) => Promise<void> },
  ) => Profile['load']['steps'][number] | null | Promise<Profile['load']['steps'][number] | null>;
  /**
   * Called with each step's result before it is kept and saved (a sweep marks what it knows of it).
   */
  annotateStep?: (step: StepResult) => void;
  maxConnections?: number;
  /**
   * Steps already done (a resumed sweep): kept in the result, not run again; profile.load.steps
   * starts with their specs.
   */
  previousSteps?: RunResult['steps'];
  /** Suffix of the result's run id and directory (e.g. a sweep's). */
  runId?: string;
  /**
   * Whether step `index` (from 0) starts from fresh connections: all are closed and the ramp
   * starts from 0. A sweep asks for it after a step whose connections failed, since failed
   * connections are not retried and would otherwise be missing from every later step.
   */
  freshConnections?: (r: RunResult, index: number) => boolean;
  /**
   * This machine's segment of a run split over several (load/segment): its processes own only
   * the segment's connections and senders, and it writes shard.json for `rtcap merge`.
   * `startAtMs`: every segment starts its first step at this wall-clock time.
   */
  segment?: { index: number; count: number; run: string; startAtMs: number | null };
}

/** Where the run is in its step, as the progress line reads it. */
export interface PhaseClock {
  /** Seconds since the current phase began. */
  elapsedS: number;
  /** How long the phase lasts; null for phases that end on an event (ramp, drain). */
  lengthS: number | null;
  /** Steps the run will take; 0 when they are decided as it goes (a sweep). */
  steps: number;
}

/**
 * What a live view of the run receives: the run as it starts (its id, profile, target), every
 * merged second with where the step is, and each step once its result is built.
 */
export interface RunObserver {
  start?(result: RunResult): void;
  second(rec: SecondRecord, stepTargetConnections: number, clock?: PhaseClock): void;
  step(step: StepResult): void;
}

export interface RunOutcome {
  result: RunResult;
  dir: string;
  exitCode: number;
  /** Gives the run directory's lock back, once its last artefact is written (also done at exit). */
  release?: () => void;
}

export const EXIT = { ok: 0, usage: 2, aborted: 3, thresholds: 99, interrupted: 130 } as const;

/** What the run started; stopped in reverse order however the run ends. */
interface Started {
  server: BuiltinServer | null;
  pool: WorkerPool | null;
  samplers: RunSamplers;
}

/**
 * How long the built-in server gets for its orderly shutdown after an interrupt before its group is
 * killed.
 */
const INTERRUPT_STOP_GRACE_MS = 2_500;

export async function runBenchmark(opts: RunOptions): Promise<RunOutcome> {
  const { profile, log } = opts;
  const scenario = getScenario(profile.scenario);
  const plans: StepPlan[] = profile.load.steps.map((_, i) => scenario.plan(profile, i));
  const maxConnections = Math.max(opts.maxConnections ?? 0, ...plans.map((p) => p.connections));
  const startedAt = new Date();
  const runId = opts.runId ?? makeRunId(profile.name, startedAt);
  const writer = RunWriter.forRun(opts.outDir, opts.reportsDir ?? 'reports', runId);
  const serverCpus = opts.serverCpus ?? null;
  const generatorCpus = opts.generatorCpus ?? null;
  const generatorCores =
    (generatorCpus ? countCpuList(generatorCpus) : null) ?? availableParallelism();

  const state: RunState = { status: 'running', abortReason: null };
  const result = initialResult({
    runId,
    startedAt,
    profile,
    profilePath: opts.profilePath,
    redactedProfile: opts.redactedProfile,
    builtin: !(opts.url ?? profile.target.url),
    serverCpus,
    generatorCpus,
    previousSteps: opts.previousSteps,
  });
  const saveWith = resultSaver({
    result,
    state,
    writer,
    log,
    analyze: opts.analyze,
    renderSummary: opts.renderSummary,
    renderArtifacts: opts.renderArtifacts,
  });
  const save = () => saveWith({ artifacts: false });
  save();
  opts.observer?.start?.(result);

  // Everything that can end the run early funnels into one abort.
  const funnel = new AbortFunnel();
  const onSignal = () => funnel.abort('interrupted', 'interrupted by the user (SIGINT/SIGTERM)');
  opts.signal?.addEventListener('abort', onSignal, { once: true });
  const started: Started = { server: null, pool: null, samplers: new RunSamplers() };
  let shard: ShardRecorder | null = null;
  const progress = new Progress(process.stderr, opts.progress ?? false);
  const live = new LivePhase();

  try {
    // ---- the generator host (systeminformation; os figures stay if it cannot answer)
    result.generator.host = {
      ...result.generator.host,
      ...(await describeHost().catch(() => ({}))),
    };
    // ---- what killed runs left under the temp directory
    const removed = await removeDeadRunLeftovers();
    if (removed.length)
      log(
        `removed ${removed.length} leftover${removed.length === 1 ? '' : 's'} of runs that are gone: ${removed.join(', ')}`,
      );
    // ---- target
    const server = await startTarget(opts, writer, funnel, serverCpus);
    started.server = server;
    const targetUrl = server?.url ?? (opts.url ?? profile.target.url)!;
    result.target.url = redactText(targetUrl);
    const local = localServerOf(profile, server?.pid ?? null, targetUrl);
    const sampler = serverSamplerFor(profile, local);
    result.target.server_sampling = sampler?.source ?? null;
    const localPid = local?.pid ?? null;
    const basis = localPid
      ? readServerBasis(localPid, profile.target.instance)
      : declaredBasis(profile.target.instance);
    const basisWarned = basisWarning(basis, profile.target.instance);
    if (basisWarned) log(`warning: ${basisWarned}`);
    const tokens = tokenConfigOf(profile, server !== null);
    await checkMinting(tokens);
    const tls = tlsOf(profile);
    const { socketUrl, headers } = socketOf(profile, targetUrl);

    // ---- generator
    const gen = setUpGenerator({
      maxConnections,
      requestedWorkers: opts.workers ?? profile.load.workers,
      requestedSourceAddresses: profile.load.source_addresses,
      loopbackTarget: isLoopbackHost(targetUrl),
      generatorCpus,
      plans,
      cores: generatorCores,
      ...(opts.segment
        ? { segment: { index: opts.segment.index, count: opts.segment.count } }
        : {}),
      result,
      log,
    });
    const stepsLabel = opts.nextStep
      ? 'steps decided as it goes'
      : `${plans.length} step${plans.length === 1 ? '' : 's'}`;
    log(
      `target: ${redactText(socketUrl)} · ${profile.scenario} · ${stepsLabel} · up to ${maxConnections.toLocaleString('en-US')} connections${serverCpus ? ` · server on CPUs ${serverCpus}` : ''}`,
    );
    for (const w of gen.warnings) log(`warning: ${w}`);
    if (generatorCpus) pin(process.pid, generatorCpus);
    save();

    // ---- timeline and samplers
    const health = new StepHealth();
    const timeline = new Timeline(
      gen.workers,
      () => ({ step: live.step, phase: live.phase }),
      basis,
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
          ? health.check(rec, live.phase, plans[live.step].connections)
          : null;
        if (why) funnel.abort('aborted', why);
      },
    );
    await started.samplers.startServer(sampler, (x) => timeline.addServerSample(x));
    await started.samplers.startHost(isLoopbackHost(targetUrl));
    // Steps that insert rows (Postgres Changes) report the server's poller figures when it exposes
    // them.
    if (plans.some((p) => p.inserts !== null)) {
      started.samplers.startGauges(
        server ? metricsUrlOf(server.url) : (profile.target.metrics_url ?? null),
        server ? undefined : profile.target.metrics_token,
      );
    }

    // ---- generator processes
    const v8Args = youngGenerationArgs(plans, opts.nextStep !== undefined);
    if (v8Args.length)
      log(
        `generator: every step only holds connections (no traffic): young generation capped (${v8Args.join(' ')})`,
      );
    const pool = new WorkerPool(gen.workers, generatorCpus, v8Args);
    started.pool = pool;
    pool.on('second', (s: SecondStats) => timeline.add(s));
    pool.on('fatal', (m: string) =>
      funnel.abort('aborted', `generator process failed: ${m.split('\n')[0]}`),
    );
    const seg = opts.segment;
    await funnel.race(
      pool.start((w) => ({
        type: 'init',
        workerIndex: w,
        workers: gen.workers,
        ...(seg ? { segment: { index: seg.index, count: seg.count } } : {}),
        profile,
        url: socketUrl,
        headers,
        sourceAddresses: gen.sourceAddresses,
        tokens,
        tls,
      })),
    );
    if (seg) {
      shard = new ShardRecorder({
        identity: {
          run: seg.run,
          profileName: profile.name,
          profileHash: profileHash(opts.redactedProfile),
          segment: seg.index,
          segments: seg.count,
        },
        workers: gen.workers,
        run: {
          profile: opts.redactedProfile,
          profilePath: opts.profilePath,
          builtin: server !== null,
          targetUrl: result.target.url,
          status: 'running',
          abortReason: null,
          finishedAt: null,
        },
      });
      const rec = shard;
      pool.on('second', (s: SecondStats) => rec.second(s));
      if (seg.startAtMs !== null) await waitForStart(seg.startAtMs, funnel, log);
      if (opts.nextStep)
        throw new Abort(
          'aborted',
          'a search sweep cannot be split into segments: its next step depends on the last result; give explicit steps',
        );
    }

    // ---- steps
    const runner: StepRunner = {
      pool,
      timeline,
      funnel,
      live,
      profile,
      log,
      dbConnectionString: server?.databaseConnectionString ?? profile.target.database_url ?? null,
      stepsSuffix: opts.nextStep ? '' : `/${plans.length}`,
      current: 0,
      // Each insert stream's rows are made by one segment (all of them on one machine).
      insertsMine: (stream) => insertSegmentOf(stream, seg?.count ?? 1) === (seg?.index ?? 0),
      schedule:
        seg?.startAtMs != null && !opts.nextStep
          ? segmentSchedule(seg.startAtMs, profile, plans)
          : null,
      burstWarning: (plan) =>
        burstWarning(
          plan,
          gen.workers,
          generatorCores,
          seg ? { index: seg.index, count: seg.count } : undefined,
        ),
    };
    const saveAll = (artifacts = false) => {
      saveWith({ artifacts });
      shard?.write(writer.path(SHARD_FILE), state.status, state.abortReason, result.finished_at);
    };
    // What was sampled beside the processes: the samplers' live arrays, read at each step's end.
    const s = started.samplers;
    const resources: ShardResources = {
      serverSamples: s.serverSamples,
      serverSource: sampler?.source ?? null,
      serverBasis: basis,
      gaugeSamples: s.gaugeSamples,
      hostSamples: s.hostSamples,
      generatorIdleRssMb: runner.pool.idleRssMb,
    };
    shard?.resources(resources);
    const probe = {
      socketUrl,
      headers,
      vsn: profile.target.vsn,
      tokens,
      tls,
      joinTimeoutMs: profile.target.join_timeout,
      sleep: (ms: number) => funnel.sleep(ms),
    };
    await walkSteps({
      opts,
      plans,
      result,
      state,
      save: saveAll,
      shard,
      runner,
      health,
      progress,
      gen,
      resources,
      builtin: server !== null,
      probe,
    });
    if (state.status === 'running') state.status = 'completed';
  } catch (e) {
    state.status = e instanceof Abort ? e.status : 'aborted';
    state.abortReason = e instanceof Abort ? e.message : redactText((e as Error).message);
  } finally {
    progress.break();
    opts.signal?.removeEventListener('abort', onSignal);
    started.samplers.stop();
    if (state.status === 'interrupted') {
      // The user wants out within seconds: generator and server stop side by side, on short graces.
      await Promise.all([started.pool?.stop(1_500), started.server?.stop(INTERRUPT_STOP_GRACE_MS)]);
    } else {
      if (started.pool) await started.pool.stop();
      if (started.server) await started.server.stop();
    }
    result.finished_at = new Date().toISOString();
    save();
    shard?.write(writer.path(SHARD_FILE), state.status, state.abortReason, result.finished_at);
  }
  if (state.abortReason) log(`run ${state.status}: ${state.abortReason}`);
  const exitCode =
    state.status === 'aborted'
      ? state.stoppedByThreshold
        ? EXIT.thresholds
        : EXIT.aborted
      : state.status === 'interrupted'
        ? EXIT.interrupted
        : EXIT.ok;
  return { result, dir: writer.dir, exitCode, release: writer.release };
}

/** A segment waits for the common start time; one that is already past it says by how much. */
async function waitForStart(
  startAtMs: number,
  funnel: AbortFunnel,
  log: (line: string) => void,
): Promise<void> {
  const waitMs = startAtMs - nowMs();
  if (waitMs > 0) {
    log(
      `waiting ${(waitMs / 1000).toFixed(1)} s for --start-at ${new Date(startAtMs).toISOString()}`,
    );
    await funnel.sleep(waitMs);
  } else {
    log(
      `warning: this segment starts ${(-waitMs / 1000).toFixed(1)} s after --start-at ${new Date(startAtMs).toISOString()}`,
    );
  }
}

/**
 * The built-in server when the profile names no URL (null otherwise); a server that dies aborts the
 * run.
 */
async function startTarget(
  opts: RunOptions,
  writer: RunWriter,
  funnel: AbortFunnel,
  serverCpus: string | null,
): Promise<BuiltinServer | null> {
  const { profile, log } = opts;
  if (opts.url ?? profile.target.url) return null;
  log('starting the built-in server (rtcap serve)…');
  // Not raced against the abort: a start that is cancelled stops what it started (server,
  // Postgres, their files) before it rejects; the run's signal cancels it.
  const server = await startBuiltinServer({
    workers: profile.target.server.workers,
    config: await builtinConfigOf(profile),
    database: profile.target.server.database,
    cpus: serverCpus,
    logPath: writer.path('server.log'),
    signal: opts.signal,
  }).catch((e: unknown) => {
    if (e instanceof StartCancelled)
      throw new Abort('interrupted', 'interrupted by the user (SIGINT/SIGTERM)');
    throw new Abort('aborted', errorLine(e));
  });
  // exited only resolves (with why the server ended); it never rejects.
  void server.exited.then((why) => funnel.abort('aborted', why));
  log(
    `built-in server: ${server.url} (pid ${server.pid}, ${server.workers} worker${server.workers === 1 ? '' : 's'}${server.database ? `, database ${server.database}` : ''})`,
  );
  return server;
}

/**
 * The profile's steps, then (sweeps) the steps decided as the run goes: each step's phases,
 * its result, result.json saved. Stops after a step the run was aborted in.
 */
async function walkSteps(args: {
  opts: RunOptions;
  plans: StepPlan[];
  result: RunResult;
  state: RunState;
  /** Saves the result; `artifacts`: the report too (another step may follow). */
  save: (artifacts?: boolean) => void;
  runner: StepRunner;
  health: StepHealth;
  progress: Progress;
  gen: GeneratorPlan;
  resources: ShardResources;
  builtin: boolean;
  shard: ShardRecorder | null;
  /** How a sweep's recovery probe reaches the target between steps. */
  probe: ProbeTarget & { sleep: (ms: number) => Promise<void> };
}): Promise<void> {
  const { opts, plans, result, state, runner } = args;
  const { profile } = opts;
  const scenario = getScenario(profile.scenario);
  // A resumed sweep numbers its new steps after the ones it keeps (profile.load.steps holds their
  // specs).
  for (let i = opts.previousSteps?.length ?? 0; ; i++) {
    if (i >= profile.load.steps.length) {
      const spec = opts.nextStep
        ? await runner.funnel.race(Promise.resolve(opts.nextStep(result, args.probe)))
        : null;
      if (!spec) break;
      profile.load.steps.push(spec);
      runner.pool.broadcast({ type: 'step', index: i, spec });
    }
    const plan = (plans[i] ??= scenario.plan(profile, i));
    runner.live.step = i;
    args.health.reset();
    const run: StepRun = await runStepPhases(
      runner,
      i,
      plan,
      i > 0 ? plans[i - 1] : undefined,
      () => opts.freshConnections?.(result, i) ?? false,
    );
    if (run.abort) {
      state.status = run.abort.status;
      state.abortReason = run.abort.message;
    }
    runner.timeline.flush();
    if (run.collected) {
      // The step as a shard holds it; its result is built by the same function rtcap merge uses.
      const part: ShardStep = {
        step: i,
        window: run.window,
        complete: run.complete,
        collected: run.collected,
        inserts: run.inserts?.sends ?? [],
        insertStats: run.inserts?.stats ?? null,
      };
      args.shard?.step(part);
      const step = shardStepResult(part, {
        profile,
        plan,
        timeline: runner.timeline,
        resources: [args.resources],
        workers: args.gen.workers,
        segments: opts.segment?.count ?? 1,
        builtin: args.builtin,
        previousSteps: result.steps,
      });
      opts.annotateStep?.(step);
      result.steps.push(step);
      runner.timeline.forgetUntil(run.window.drainEnd + 1000);
      opts.observer?.step(step);
      args.progress.break();
      runner.log(
        `step ${i + 1}: ${step.verdict} — joined ${step.connections.joined}/${step.connections.target}, delivery ${step.delivery_rate === null ? '—' : (step.delivery_rate * 100).toFixed(3) + ' %'}, ` +
          `first-receive p95 ${step.latency_ms.p95 ?? '—'} ms, ${step.rates.delivered_per_s ?? '—'} deliveries/s` +
          (step.verdict_reasons.length ? ` (${step.verdict_reasons[0]})` : ''),
      );
    }
    // abort_on_fail (k6): a threshold that already fails on a finished step stops the run here.
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
    args.save(
      state.status === 'running' &&
        (opts.nextStep !== undefined || i + 1 < profile.load.steps.length),
    );
    opts.onStep?.(result);
    if (state.status !== 'running') break;
  }
}
