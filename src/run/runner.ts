/**
 * The coordinator of a run: starts the target (the built-in server when the profile names no
 * URL), the generator processes and the samplers; walks the steps (ramp at the join rate,
 * warm-up, steady sends, drain); builds each step's result with its verdict; and writes the
 * run directory as it goes. Any way the run ends (done, aborted, interrupted) leaves
 * result.json, summary.md and timeseries.ndjson readable.
 */
import os from 'node:os';
import { createRequire } from 'node:module';
import { nowMs } from '../measure/clock.js';
import { buildSocketUrl, isLoopbackHost, redact } from '../client/url.js';
import { WorkerPool, pin } from '../load/pool.js';
import { planGenerator, readLimits } from '../load/limits.js';
import type { SecondStats, StepCollected, TokenConfig } from '../load/ipc.js';
import { ProcTreeSampler } from '../monitor/proc.js';
import { PrometheusSampler } from '../monitor/prometheus.js';
import type { ResourceSample, ResourceSampler } from '../monitor/types.js';
import { GaugeProbe, metricsUrlOf, POLLER_GAUGES, type GaugeSample } from '../monitor/gauges.js';
import type { Profile } from '../profile/schema.js';
import { RESULT_SCHEMA, type RunResult, type RunStatus, type StepResult, type TimeseriesPoint } from '../report/result.js';
import { getScenario } from '../scenarios/index.js';
import type { StepPlan } from '../scenarios/types.js';
import { makeRunId, RunWriter } from './output.js';
import { Progress } from './progress.js';
import { buildStepResult, type StepWindow } from './step-result.js';
import { BUILTIN_JWT_SECRET, startBuiltinServer, type BuiltinServer } from './target.js';
import { Timeline, type SecondRecord } from './timeline.js';
import { startInserts, type InsertRun } from './inserts.js';

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
  /** Computed before every write of result.json and stored as `result.analysis` (fits, knees, capacity, advice). */
  analyze?: (r: RunResult) => unknown;
  /** Writes the other artefacts (report.html, ...) into the run directory after each result.json. */
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
  nextStep?: (r: RunResult) => Profile['load']['steps'][number] | null;
  maxConnections?: number;
  /** Steps already done (a resumed sweep): kept in the result, not run again; profile.load.steps starts with their specs. */
  previousSteps?: RunResult['steps'];
  /** Suffix of the result's run id and directory (e.g. a sweep's). */
  runId?: string;
  /**
   * Whether step `index` (from 0) starts from fresh connections: all are closed and the ramp
   * starts from 0. A sweep asks for it after a step whose connections failed, since failed
   * connections are not retried and would otherwise be missing from every later step.
   */
  freshConnections?: (r: RunResult, index: number) => boolean;
}

/** What a live view of the run receives: every merged second, and each step once its result is built. */
export interface RunObserver {
  second(rec: SecondRecord, stepTargetConnections: number): void;
  step(step: StepResult): void;
}

export interface RunOutcome {
  result: RunResult;
  dir: string;
  exitCode: number;
}

export const EXIT = { ok: 0, usage: 2, aborted: 3, thresholds: 99, interrupted: 130 } as const;

class Abort extends Error {
  constructor(
    readonly status: RunStatus,
    message: string,
  ) {
    super(message);
  }
}

function rtcapVersion(): string {
  try {
    return (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

export async function runBenchmark(opts: RunOptions): Promise<RunOutcome> {
  const { profile, log } = opts;
  const scenario = getScenario(profile.scenario);
  const plans: StepPlan[] = profile.load.steps.map((_, i) => scenario.plan(profile, i));
  const maxConnections = Math.max(opts.maxConnections ?? 0, ...plans.map((p) => p.connections));
  const stepsLabel = opts.nextStep ? 'steps decided as it goes' : `${plans.length} step${plans.length === 1 ? '' : 's'}`;
  const startedAt = new Date();
  const runId = opts.runId ?? makeRunId(profile.name, startedAt);
  const writer = RunWriter.forRun(opts.outDir, opts.reportsDir ?? 'reports', runId);
  const serverCpus = opts.serverCpus ?? null;
  const generatorCpus = opts.generatorCpus ?? null;

  let status: RunStatus = 'running';
  let abortReason: string | null = null;
  const result: RunResult = {
    schema: RESULT_SCHEMA,
    run_id: runId,
    status,
    abort_reason: null,
    started_at: startedAt.toISOString(),
    finished_at: null,
    rtcap_version: rtcapVersion(),
    profile: { name: profile.name, scenario: profile.scenario, path: opts.profilePath, resolved: opts.redactedProfile },
    target: {
      url: '',
      builtin: !(opts.url ?? profile.target.url),
      vsn: profile.target.vsn,
      dialect: profile.target.dialect,
      topic: profile.target.topic,
      instance: profile.target.instance,
      cpus: serverCpus,
      server_sampling: null,
    },
    generator: {
      workers: 0,
      cpus: generatorCpus,
      source_addresses: [],
      limits: { open_files_per_process: null, ephemeral_ports: null, port_range: null },
      host: { cores: os.cpus().length, memory_mb: Math.round(os.totalmem() / 1048576), node: process.version, platform: `${os.platform()} ${os.release()}` },
    },
    slo: profile.slo,
    steps: [...(opts.previousSteps ?? [])],
  };
  const save = () => {
    result.status = status;
    result.abort_reason = abortReason;
    if (opts.analyze) {
      try {
        result.analysis = opts.analyze(result);
      } catch (e) {
        log(`warning: the analysis could not be computed: ${(e as Error).message}`);
      }
    }
    writer.writeResult(result);
    if (opts.renderSummary) {
      try {
        writer.writeText('summary.md', opts.renderSummary(result));
      } catch (e) {
        log(`warning: summary.md could not be rendered: ${(e as Error).message}`);
      }
    }
    if (opts.renderArtifacts) {
      try {
        opts.renderArtifacts(result, writer.dir);
      } catch (e) {
        log(`warning: report artefacts could not be rendered: ${(e as Error).message}`);
      }
    }
  };
  save();

  // Everything that can end the run early funnels into this promise.
  let rejectAbort!: (e: Abort) => void;
  const aborted = new Promise<never>((_, reject) => (rejectAbort = reject));
  aborted.catch(() => undefined);
  const abort = (s: RunStatus, why: string) => rejectAbort(new Abort(s, why));
  const onSignal = () => abort('interrupted', 'interrupted by the user (SIGINT/SIGTERM)');
  opts.signal?.addEventListener('abort', onSignal, { once: true });
  const race = <T>(p: Promise<T>) => Promise.race([p, aborted]);
  // Unref: an interrupted run must not wait for the rest of a steady window to exit.
  const sleep = (ms: number) => race(new Promise<void>((r) => setTimeout(r, Math.max(0, ms)).unref()));

  let server: BuiltinServer | null = null;
  let pool: WorkerPool | null = null;
  let sampler: ResourceSampler | null = null;
  let sampleTimer: NodeJS.Timeout | null = null;
  let gaugeTimer: NodeJS.Timeout | null = null;
  const progress = new Progress(process.stderr, opts.progress ?? false);
  let exitCode: number = EXIT.ok;

  // Live state for the timeline and early-abort checks.
  const ctx = { step: 0, phase: 'ramp' as TimeseriesPoint['phase'], phaseStartMs: nowMs(), phaseLengthS: null as number | null };
  const stepErrors = new Map<string, number>();
  let stepJoinedPeak = 0;

  try {
    // ---- target
    let targetUrl = opts.url ?? profile.target.url;
    if (!targetUrl) {
      log('starting the built-in server (rtcap serve)…');
      server = await race(
        startBuiltinServer({
          workers: profile.target.server.workers,
          config: profile.target.server.config,
          database: profile.target.server.database,
          cpus: serverCpus,
          logPath: writer.path('server.log'),
          configPath: writer.path('server-config.json'),
        }),
      );
      targetUrl = server.url;
      server.exited.then((why) => abort('aborted', why));
      log(`built-in server: ${server.url} (pid ${server.pid}, ${server.workers} worker${server.workers === 1 ? '' : 's'}${server.database ? `, database ${server.database}` : ''})`);
    }
    result.target.url = redact(targetUrl);
    const serverPid = server?.pid ?? profile.target.server_pid ?? null;
    if (serverPid) sampler = new ProcTreeSampler(serverPid);
    else if (profile.target.metrics_url) sampler = new PrometheusSampler(profile.target.metrics_url, profile.target.metrics_token, profile.target.instance.vcpus);
    result.target.server_sampling = sampler?.source ?? null;

    // ---- tokens and socket URL
    const auth = profile.target.auth;
    const tokens: TokenConfig = {
      apikey: auth?.apikey,
      jwtSecret: auth?.jwt_secret ?? (server && !auth?.apikey && !auth?.token_file ? BUILTIN_JWT_SECRET : undefined),
      role: auth?.role ?? 'anon',
      ttlMs: auth?.token_ttl ?? 3_600_000,
      tokenFile: auth?.token_file,
      userTokenFile: profile.private.user_token_file,
      apikeyIn: auth?.apikey_in ?? 'query',
    };
    const socketUrl = buildSocketUrl(targetUrl, { vsn: profile.target.vsn, params: profile.target.params });
    const headers: Record<string, string> = { ...profile.target.headers };
    if (profile.target.host) headers.host = profile.target.host;

    // ---- generator limits and shape
    const limits = readLimits();
    const gen = planGenerator({
      maxConnections,
      requestedWorkers: opts.workers ?? profile.load.workers,
      requestedSourceAddresses: profile.load.source_addresses,
      loopbackTarget: isLoopbackHost(targetUrl),
      limits,
    });
    result.generator.workers = gen.workers;
    result.generator.source_addresses = gen.sourceAddresses.length ? gen.sourceAddresses : ['(kernel default)'];
    result.generator.limits = {
      open_files_per_process: limits.openFilesPerProcess,
      ephemeral_ports: limits.ephemeralPorts,
      port_range: limits.portRange ? `${limits.portRange[0]}-${limits.portRange[1]}` : null,
    };
    log(
      `generator: ${gen.workers} process${gen.workers === 1 ? '' : 'es'}${generatorCpus ? ` on CPUs ${generatorCpus}` : ''}, ` +
        `open-file limit ${limits.openFilesPerProcess ?? 'unknown'} per process, ` +
        `ephemeral ports ${limits.portRange ? `${limits.portRange[0]}–${limits.portRange[1]} (${limits.ephemeralPorts} per source address)` : 'unknown'}, ` +
        `source addresses ${gen.sourceAddresses.length ? gen.sourceAddresses.join(', ') : 'kernel default'}`,
    );
    log(`target: ${redact(socketUrl)} · ${profile.scenario} · ${stepsLabel} · up to ${maxConnections.toLocaleString('en-US')} connections${serverCpus ? ` · server on CPUs ${serverCpus}` : ''}`);
    for (const w of gen.warnings) log(`warning: ${w}`);
    if (generatorCpus) pin(process.pid, generatorCpus);
    save();

    // ---- samplers and timeline
    const timeline = new Timeline(gen.workers, () => ({ step: ctx.step, phase: ctx.phase }), profile.target.instance, (rec) => onSecond(rec));
    const serverSamples: ResourceSample[] = [];
    /** Waits for a whole second after `sinceMs` with at most `n` sockets open (closes finished), 30 s at most. */
    const closedDown = async (n: number, sinceMs: number) => {
      for (let waited = 0; waited < 30_000; waited += 500) {
        await sleep(500);
        const last = timeline.seconds[timeline.seconds.length - 1]?.point;
        if (last && last.t * 1000 > sinceMs && last.connections_open <= n) return;
      }
    };
    if (sampler) {
      const s = sampler;
      await s.sample();
      sampleTimer = setInterval(() => {
        void s.sample().then((x) => {
          serverSamples.push(x);
          if (serverSamples.length > 4000) serverSamples.splice(0, 1000);
          timeline.addServerSample(x);
        });
      }, 1000);
    }
    // Steps that insert rows (Postgres Changes) report the server's poller figures when it exposes them.
    const gaugeSamples: GaugeSample[] = [];
    const gaugeUrl = server ? metricsUrlOf(server.url) : (profile.target.metrics_url ?? null);
    if (gaugeUrl && plans.some((p) => p.inserts !== null)) {
      const probe = new GaugeProbe(gaugeUrl, server ? undefined : profile.target.metrics_token, POLLER_GAUGES);
      gaugeTimer = setInterval(() => {
        void probe.sample().then((x) => {
          if (!x) return;
          gaugeSamples.push(x);
          if (gaugeSamples.length > 4000) gaugeSamples.splice(0, 1000);
        });
      }, 1000);
    }
    const onSecond = (rec: SecondRecord) => {
      writer.appendTimeseries(rec.point);
      opts.observer?.second(rec, plans[ctx.step]?.connections ?? 0);
      for (const wkr of rec.workers) for (const [k, v] of Object.entries(wkr.errorReasons)) stepErrors.set(k, (stepErrors.get(k) ?? 0) + v);
      stepJoinedPeak = Math.max(stepJoinedPeak, rec.point.joined);
      progress.update(rec.point, {
        steps: opts.nextStep ? 0 : plans.length,
        target: plans[ctx.step]?.connections ?? 0,
        elapsedInPhaseS: (nowMs() - ctx.phaseStartMs) / 1000,
        phaseLengthS: ctx.phaseLengthS,
      });
      // Unreachable or refusing target: nothing joins and attempts keep failing.
      const errorsSoFar = [...stepErrors.values()].reduce((a, b) => a + b, 0);
      if (ctx.phase === 'ramp' && rec.point.joined === 0 && stepJoinedPeak === 0 && errorsSoFar >= Math.min(20, plans[ctx.step].connections)) {
        abort('aborted', `no connection could join: ${topError(stepErrors)}`);
      }
      // A server that drops everyone mid-run.
      if ((ctx.phase === 'steady' || ctx.phase === 'drain') && stepJoinedPeak > 0 && rec.point.joined === 0 && rec.point.connections_open === 0) {
        abort('aborted', `all ${stepJoinedPeak.toLocaleString('en-US')} connections were lost: ${topError(stepErrors)}`);
      }
    };

    pool = new WorkerPool(gen.workers, generatorCpus);
    pool.on('second', (s: SecondStats) => timeline.add(s));
    pool.on('fatal', (m: string) => abort('aborted', `generator process failed: ${m.split('\n')[0]}`));
    await race(
      pool.start((w) => ({
        type: 'init',
        workerIndex: w,
        workers: gen.workers,
        profile,
        url: socketUrl,
        headers,
        sourceAddresses: gen.sourceAddresses,
        tokens,
      })),
    );

    // ---- steps
    const dbConnectionString = server?.databaseConnectionString ?? profile.target.database_url ?? null;
    let current = 0;
    // A resumed sweep numbers its new steps after the ones it keeps (profile.load.steps holds their specs).
    for (let i = opts.previousSteps?.length ?? 0; ; i++) {
      if (i >= profile.load.steps.length) {
        const spec = opts.nextStep?.(result) ?? null;
        if (!spec) break;
        profile.load.steps.push(spec);
        pool.broadcast({ type: 'step', index: i, spec });
      }
      const plan = (plans[i] ??= scenario.plan(profile, i));
      let inserts: InsertRun | null = null;
      let insertResult: Awaited<InsertRun['done']> | null = null;
      ctx.step = i;
      stepErrors.clear();
      stepJoinedPeak = 0;
      const setPhase = (phase: TimeseriesPoint['phase'], lengthS: number | null) => {
        ctx.phase = phase;
        ctx.phaseStartMs = nowMs();
        ctx.phaseLengthS = lengthS;
      };
      const w: StepWindow = { rampStart: nowMs(), rampEnd: 0, steadyStart: 0, steadyEnd: 0, drainEnd: 0 };
      let collected: StepCollected[] | null = null;
      let complete = false;
      try {
        // A step whose connections join other topics or configs starts from fresh connections.
        const before = i > 0 ? plans[i - 1] : undefined;
        if (current > 0 && plan.topology !== undefined && before?.topology !== undefined && plan.topology !== before.topology) {
          log(`step ${i + 1}: new topology — closing ${current.toLocaleString('en-US')} connections to join them again`);
          const closedAt = nowMs();
          pool.broadcast({ type: 'shrink', step: i, toConn: 0 });
          current = 0;
          await closedDown(0, closedAt);
        }
        if (current > 0 && opts.freshConnections?.(result, i)) {
          log(`step ${i + 1}: starting from fresh connections — closing ${current.toLocaleString('en-US')} first`);
          const closedAt = nowMs();
          pool.broadcast({ type: 'shrink', step: i, toConn: 0 });
          current = 0;
          // The server must have let the old sockets go (file descriptors, users) before new
          // ones arrive; then two more seconds.
          await closedDown(0, closedAt);
          await sleep(2000);
        }
        setPhase('ramp', plan.connections > current ? (plan.connections - current) / plan.joinRatePerS : null);
        log(`step ${i + 1}${opts.nextStep ? '' : `/${plans.length}`}: ${plan.label} — ramp ${current.toLocaleString('en-US')} → ${plan.connections.toLocaleString('en-US')} connections at ${plan.joinRatePerS}/s`);
        if (plan.connections > current) {
          w.rampStart = nowMs() + 50;
          // Bounded: every connection either joins, fails, or times out after join_timeout.
          const rampBudgetMs = ((plan.connections - current) / plan.joinRatePerS) * 1000 + profile.target.join_timeout * 2 + 10_000;
          const ramp = await race(Promise.race([pool.ramp(i, current, plan.connections, w.rampStart), timeoutAfter(rampBudgetMs, `ramp did not finish within ${Math.round(rampBudgetMs / 1000)} s`)]));
          if (ramp.joined === 0) throw new Abort('aborted', `no connection could join: ${topError(ramp.errors)}`);
        } else if (plan.connections < current) {
          const closedAt = nowMs();
          pool.broadcast({ type: 'shrink', step: i, toConn: plan.connections });
          await closedDown(plan.connections, closedAt);
        }
        current = plan.connections;
        w.rampEnd = nowMs();
        if (profile.load.warmup > 0) {
          setPhase('warmup', profile.load.warmup / 1000);
          await sleep(profile.load.warmup);
        }
        setPhase('steady', plan.durationMs / 1000);
        w.steadyStart = nowMs() + 100;
        w.steadyEnd = w.steadyStart + plan.durationMs;
        if (plan.inserts && plan.inserts.count > 0) {
          if (!dbConnectionString) throw new Abort('aborted', `scenario ${profile.scenario} inserts rows but no database is known: set target.database_url (or run against the built-in server)`);
          inserts = startInserts({ traffic: plan.inserts, step: i, startMs: w.steadyStart, durationMs: plan.durationMs, connectionString: dbConnectionString, lateThresholdMs: profile.load.late_threshold });
        }
        const sendsDone = pool.send(i, w.steadyStart);
        await sleep(w.steadyEnd - nowMs());
        await race(Promise.race([sendsDone, timeoutAfter(plan.durationMs + 5000, 'senders did not finish')]));
        if (inserts) insertResult = await race(Promise.race([inserts.done, timeoutAfter(plan.durationMs + 15_000, 'database inserts did not finish')]));
        setPhase('drain', profile.load.drain / 1000);
        await drain(timeline, w.steadyEnd, profile.load.settle, profile.load.drain, sleep);
        w.drainEnd = nowMs();
        complete = true;
        collected = await race(pool.collect(i));
      } catch (e) {
        if (!(e instanceof Abort)) throw e;
        status = e.status;
        abortReason = e.message;
        w.rampEnd ||= nowMs();
        w.steadyStart ||= w.rampEnd;
        w.steadyEnd = Math.min(w.steadyEnd || nowMs(), nowMs());
        w.drainEnd = nowMs();
        // Keep what the workers have, if they still answer.
        collected = await Promise.race([pool.collect(i), new Promise<null>((r) => setTimeout(() => r(null), 5000))]);
        if (inserts && !insertResult) {
          inserts.stop();
          insertResult = await Promise.race([inserts.done, new Promise<null>((r) => setTimeout(() => r(null), 5000))]);
        }
      }
      timeline.flush();
      if (collected) {
        const step = buildStepResult({
          profile,
          plan,
          collected,
          inserts: insertResult?.sends ?? [],
          insertStats: insertResult?.stats ?? null,
          window: w,
          steadySeconds: timeline.between(w.steadyStart, w.steadyEnd),
          stepSeconds: timeline.between(w.rampStart, w.drainEnd + 1000),
          serverSamples,
          serverSource: sampler?.source ?? null,
          workers: gen.workers,
          complete,
          builtin: server !== null,
          previousSteps: result.steps.slice(),
          serverGauges: gaugeSamples,
        });
        result.steps.push(step);
        opts.observer?.step(step);
        progress.break();
        log(
          `step ${i + 1}: ${step.verdict} — joined ${step.connections.joined}/${step.connections.target}, delivery ${step.delivery_rate === null ? '—' : (step.delivery_rate * 100).toFixed(3) + ' %'}, ` +
            `first-receive p95 ${step.latency_ms.p95 ?? '—'} ms, ${step.rates.delivered_per_s ?? '—'} deliveries/s` +
            (step.verdict_reasons.length ? ` (${step.verdict_reasons[0]})` : ''),
        );
      }
      save();
      opts.onStep?.(result);
      if (status !== 'running') break;
    }
    if (status === 'running') status = 'completed';
  } catch (e) {
    if (e instanceof Abort) {
      status = e.status;
      abortReason = e.message;
    } else {
      status = 'aborted';
      abortReason = redact((e as Error).message);
    }
  } finally {
    progress.break();
    opts.signal?.removeEventListener('abort', onSignal);
    if (sampleTimer) clearInterval(sampleTimer);
    if (gaugeTimer) clearInterval(gaugeTimer);
    if (pool) await pool.stop();
    if (server) await server.stop();
    result.finished_at = new Date().toISOString();
    save();
  }
  if (status === 'aborted') exitCode = EXIT.aborted;
  if (status === 'interrupted') exitCode = EXIT.interrupted;
  if (abortReason) log(`run ${status}: ${abortReason}`);
  return { result, dir: writer.dir, exitCode };
}

function topError(errors: Map<string, number>): string {
  let best: [string, number] | null = null;
  let total = 0;
  for (const e of errors) {
    total += e[1];
    if (!best || e[1] > best[1]) best = e;
  }
  if (!best) return 'no error reported';
  return `${best[0]} (×${best[1]}${total > best[1] ? ` of ${total} errors` : ''})`;
}

function timeoutAfter(ms: number, what: string): Promise<never> {
  return new Promise((_, reject) => setTimeout(() => reject(new Abort('aborted', what)), ms).unref());
}

/**
 * Waits for messages and acks still in flight after the last send: ends at the first whole
 * second after the sends with no receipt and no ack awaited (once `settleMs` passed), or at
 * `maxMs`; acks still pending then are counted unacked.
 */
async function drain(timeline: Timeline, steadyEndMs: number, settleMs: number, maxMs: number, sleep: (ms: number) => Promise<void>): Promise<void> {
  const start = nowMs();
  while (nowMs() - start < maxMs) {
    await sleep(200);
    if (nowMs() - start < settleMs) continue;
    const quiet = timeline.seconds.some((s) => s.point.t * 1000 >= steadyEndMs && s.point.delivered_per_s === 0 && (s.point.acks_pending ?? 0) === 0);
    if (quiet) return;
  }
}
