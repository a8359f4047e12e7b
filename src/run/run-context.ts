/**
 * One run's fixed parts, made before anything starts and shared by the coordinator's stages
 * (run/runner), grouped by what reads them: the options in their parts; the plan (the steps'
 * plans, the generator's cores); the record (the run directory, the initial result.json and how
 * it is saved); and the run as it goes (the abort funnel, what has been started so far, the
 * progress line and the live phase).
 */
import { availableParallelism } from 'node:os';
import { countCpuList } from '../load/burst-plan.js';
import type { WorkerPool } from '../load/pool.js';
import type { LinkSetup } from '../link/link-setup.js';
import type { RunResult } from '../result/result.js';
import { getScenario } from '../scenarios/index.js';
import type { StepPlan } from '../scenarios/types.js';
import { SHARD_FILE } from '../shard/format.js';
import type { ShardRecorder } from '../shard/record.js';
import { AbortFunnel } from './abort.js';
import { isLoopbackHost } from '../client/url.js';
import { HostCannotHold, refuseWhatCannotFit } from './generator-setup.js';
import { loadBeyondBounds } from '../load/load-bounds.js';
import { LivePhase } from './live-state.js';
import { makeRunId, RunWriter } from './output.js';
import { Progress } from './progress.js';
import type {
  DirPart,
  LoadPart,
  OutputPart,
  ProfilePart,
  RunOptions,
  SearchPart,
  SignalsPart,
  TargetPart,
} from './run-options.js';
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

/**
 * A run's options split into their parts (run/run-options), so that each stage is handed the
 * parts it reads. The run directory's part (DirPart) is read once, by contextOf.
 */
export interface RunParts {
  profile: ProfilePart;
  target: TargetPart;
  load: LoadPart;
  output: OutputPart;
  signals: SignalsPart;
  search: SearchPart;
}

/** The options in their parts. */
export function partsOf(opts: RunOptions): RunParts {
  const o = opts;
  return {
    profile: { profile: o.profile, profilePath: o.profilePath, redactedProfile: o.redactedProfile },
    target: { url: o.url, serverCpus: o.serverCpus ?? null },
    load: { workers: o.workers, generatorCpus: o.generatorCpus ?? null, segment: o.segment },
    output: {
      log: o.log,
      progress: o.progress,
      renderSummary: o.renderSummary,
      analyze: o.analyze,
      renderArtifacts: o.renderArtifacts,
    },
    signals: { signal: o.signal, observer: o.observer, onStep: o.onStep },
    search: {
      nextStep: o.nextStep,
      annotateStep: o.annotateStep,
      maxConnections: o.maxConnections,
      previousSteps: o.previousSteps,
      freshConnections: o.freshConnections,
      stopAfterRamp: o.stopAfterRamp,
    },
  };
}

/** What the run will do, fixed before it starts. */
export interface RunPlan {
  /** The steps' plans known at the start (a sweep's later ones are added as they come). */
  plans: StepPlan[];
  maxConnections: number;
  /** Cores the generator may use (its --generator-cpus, else the host's). */
  generatorCores: number;
}

/** The run's record: its directory, how it stands, result.json and how it is saved. */
export interface RunRecord {
  writer: RunWriter;
  state: RunState;
  result: RunResult;
  saveWith: (o?: { artifacts?: boolean }) => void;
  /** Saves result.json and summary.md (not the other artefacts). */
  save: () => void;
}

/** The run as it goes: the abort funnel, what it started, the progress line, the live phase. */
export interface RunLive {
  funnel: AbortFunnel;
  started: Started;
  progress: Progress;
  phase: LivePhase;
}

/** One run's fixed parts, made before anything starts, shared by its stages. */
export interface RunContext {
  parts: RunParts;
  plan: RunPlan;
  record: RunRecord;
  live: RunLive;
}

/** The steps' plans, the run directory, the initial result.json and how it is saved. */
export function contextOf(opts: RunOptions): RunContext {
  const parts = partsOf(opts);
  const plan = planOf(parts);
  const record = recordOf(parts, opts);
  return {
    parts,
    plan,
    record,
    live: {
      funnel: new AbortFunnel(),
      started: { server: null, pool: null, samplers: new RunSamplers(), shard: null, link: null },
      progress: new Progress(process.stderr, parts.output.progress ?? false),
      phase: new LivePhase(),
    },
  };
}

/**
 * The steps' plans and the generator's cores; refused (HostCannotHold) before the run directory
 * or anything else exists when this machine cannot hold the generator or no run can offer the load.
 */
function planOf(parts: RunParts): RunPlan {
  const { profile } = parts.profile;
  const { load } = parts;
  const scenario = getScenario(profile.scenario);
  const plans: StepPlan[] = profile.load.steps.map((_, i) => scenario.plan(profile, i));
  const maxConnections = Math.max(
    parts.search.maxConnections ?? 0,
    ...plans.map((p) => p.connections),
  );
  const url = parts.target.url ?? profile.target.url;
  refuseWhatCannotFit({
    maxConnections,
    requestedWorkers: load.workers ?? profile.load.workers,
    requestedSourceAddresses: profile.load.source_addresses,
    loopbackTarget: !url || isLoopbackHost(url),
    link: profile.generator.link !== undefined,
    builtinServer: !url,
    segments: load.segment?.count,
  });
  const generatorCpus = load.generatorCpus ?? null;
  const generatorCores =
    (generatorCpus ? countCpuList(generatorCpus) : null) ?? availableParallelism();
  // A load no run can offer (a payload over one frame, sends or joins closer than the schedule
  // can pace, more deliveries than these cores can read): refused with its number and bound.
  const beyond = loadBeyondBounds(plans, generatorCores, load.segment?.count);
  if (beyond) throw new HostCannotHold(beyond);
  return { plans, maxConnections, generatorCores };
}

/** The run directory, the initial result.json and how it is saved. */
function recordOf(parts: RunParts, dir: DirPart): RunRecord {
  const { profile, profilePath, redactedProfile } = parts.profile;
  const { output } = parts;
  const startedAt = new Date();
  const runId = dir.runId ?? makeRunId(profile.name, startedAt);
  const writer = RunWriter.forRun(dir.outDir, dir.reportsDir ?? 'reports', runId);
  const state: RunState = { status: 'running', abortReason: null };
  const result = initialResult({
    runId,
    startedAt,
    profile,
    profilePath,
    redactedProfile,
    builtin: !(parts.target.url ?? profile.target.url),
    serverCpus: parts.target.serverCpus ?? null,
    generatorCpus: parts.load.generatorCpus ?? null,
    previousSteps: parts.search.previousSteps,
  });
  const saveWith = resultSaver({
    result,
    state,
    writer,
    log: output.log,
    analyze: output.analyze,
    renderSummary: output.renderSummary,
    renderArtifacts: output.renderArtifacts,
  });
  return { writer, state, result, saveWith, save: () => saveWith({ artifacts: false }) };
}

/** A segment's shard.json, with the run's status as it stands. */
export function writeShard({ state, result, writer }: RunRecord, started: Started): void {
  started.shard?.write(
    writer.path(SHARD_FILE),
    state.status,
    state.abortReason,
    result.finished_at,
  );
}
