/**
 * One run's fixed parts, made before anything starts and shared by the coordinator's stages
 * (run/runner): the steps' plans, the run directory, the initial result.json and how it is saved,
 * the abort funnel, what has been started so far, the progress line and the live phase.
 */
import { availableParallelism } from 'node:os';
import { countCpuList } from '../load/burst-plan.js';
import type { WorkerPool } from '../load/pool.js';
import type { LinkSetup } from '../link/link-setup.js';
import type { RunResult } from '../result/result.js';
import { getScenario } from '../scenarios/index.js';
import type { StepPlan } from '../scenarios/types.js';
import type { ShardRecorder } from '../shard/record.js';
import { AbortFunnel } from './abort.js';
import { isLoopbackHost } from '../client/url.js';
import { HostCannotHold, refuseWhatCannotFit } from './generator-setup.js';
import { loadBeyondBounds } from '../load/load-bounds.js';
import { LivePhase } from './live-state.js';
import { makeRunId, RunWriter } from './output.js';
import { Progress } from './progress.js';
import type { RunOptions } from './run-options.js';
import { initialResult, resultSaver, type RunState } from './run-result.js';
import { RunSamplers } from './samplers.js';
import type { BuiltinServer } from './target.js';

/** What the run started; stopped in reverse order however the run ends. */
export interface Started {
  server: BuiltinServer | null;
  pool: WorkerPool | null;
  samplers: RunSamplers;
  /** One segment's shard, written at the end of every step and of the run. */
  shard: ShardRecorder | null;
  /** The emulated client link (generator.link): relays, and netem's namespace. */
  link: LinkSetup | null;
}

/** One run's fixed parts, made before anything starts, shared by its stages. */
export interface RunContext {
  opts: RunOptions;
  plans: StepPlan[];
  maxConnections: number;
  writer: RunWriter;
  serverCpus: string | null;
  generatorCpus: string | null;
  generatorCores: number;
  state: RunState;
  result: RunResult;
  saveWith: (o?: { artifacts?: boolean }) => void;
  /** Saves result.json and summary.md (not the other artefacts). */
  save: () => void;
  funnel: AbortFunnel;
  started: Started;
  progress: Progress;
  live: LivePhase;
}

/** The steps' plans, the run directory, the initial result.json and how it is saved. */
export function contextOf(opts: RunOptions): RunContext {
  const { profile, log } = opts;
  const scenario = getScenario(profile.scenario);
  const plans: StepPlan[] = profile.load.steps.map((_, i) => scenario.plan(profile, i));
  const maxConnections = Math.max(opts.maxConnections ?? 0, ...plans.map((p) => p.connections));
  // Before the run directory or anything else: a generator this machine cannot hold.
  const url = opts.url ?? profile.target.url;
  refuseWhatCannotFit({
    maxConnections,
    requestedWorkers: opts.workers ?? profile.load.workers,
    requestedSourceAddresses: profile.load.source_addresses,
    loopbackTarget: !url || isLoopbackHost(url),
    link: profile.generator.link !== undefined,
    builtinServer: !url,
    segments: opts.segment?.count,
  });
  const serverCpus = opts.serverCpus ?? null;
  const generatorCpus = opts.generatorCpus ?? null;
  const generatorCores =
    (generatorCpus ? countCpuList(generatorCpus) : null) ?? availableParallelism();
  // A load no run can offer (a payload over one frame, sends or joins closer than the schedule
  // can pace, more deliveries than these cores can read): refused with its number and bound.
  const beyond = loadBeyondBounds(plans, generatorCores, opts.segment?.count);
  if (beyond) throw new HostCannotHold(beyond);
  const startedAt = new Date();
  const runId = opts.runId ?? makeRunId(profile.name, startedAt);
  const writer = RunWriter.forRun(opts.outDir, opts.reportsDir ?? 'reports', runId);
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
  return {
    opts,
    plans,
    maxConnections,
    writer,
    serverCpus,
    generatorCpus,
    generatorCores,
    state,
    result,
    saveWith,
    save: () => saveWith({ artifacts: false }),
    funnel: new AbortFunnel(),
    started: { server: null, pool: null, samplers: new RunSamplers(), shard: null, link: null },
    progress: new Progress(process.stderr, opts.progress ?? false),
    live: new LivePhase(),
  };
}
