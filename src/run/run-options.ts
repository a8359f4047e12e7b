/**
 * What a run is given and what it gives back: the options of runBenchmark in their parts, the
 * observer a live view implements, the outcome. Types only (and profilePartOf), so every part of
 * the coordinator and its callers can import them without importing the runner.
 */
import type { LoadedProfile } from '../profile/load.js';
import type { Profile } from '../profile/schema.js';
import type { RunResult, StepResult } from '../result/result.js';
import type { ProbeTarget } from '../recovery/probe.js';
import type { SecondRecord } from '../figures/timeline.js';
import type { RampDone } from '../load/pool.js';
import type { SecondLimits } from '../model/second-limit.js';

/*
 * A run's options travel as small parts, each the fields one concern reads: what is measured
 * (ProfilePart, TargetPart), the generator (LoadPart), where and what the run writes (DirPart,
 * OutputPart), who watches and stops it (SignalsPart), and a search's hooks (SearchPart). A caller
 * composes the parts it has (cli/run-flags builds the command line's), and a stage of the run takes
 * the parts it reads.
 */

/** The profile a run measures, as loaded and as result.json stores it. */
export interface ProfilePart {
  profile: Profile;
  profilePath: string | null;
  /** The resolved profile with secrets replaced, as stored in result.json. */
  redactedProfile: unknown;
}

/** The profile part of a run's options, from a loaded profile. */
export function profilePartOf(loaded: LoadedProfile): ProfilePart {
  return { profile: loaded.profile, profilePath: loaded.path, redactedProfile: loaded.redacted };
}

/** Where the target is (a URL over target.url; none: the built-in server) and its CPUs. */
export interface TargetPart {
  url?: string;
  /** The CPUs the built-in server is pinned to (taskset list). */
  serverCpus?: string | null;
}

/** The generator: its processes, their CPUs, and this machine's segment of a split run. */
export interface LoadPart {
  workers?: number;
  generatorCpus?: string | null;
  /**
   * This machine's segment of a run split over several (generator/segment): its processes own only
   * the segment's connections and senders, and it writes shard.json for `rtcap merge`.
   * `startAtMs`: every segment starts its first step at this wall-clock time.
   */
  segment?: { index: number; count: number; run: string; startAtMs: number | null };
}

/** Where the run directory is, and the id that names it. */
export interface DirPart {
  outDir?: string;
  reportsDir?: string;
  /** Suffix of the result's run id and directory (e.g. a sweep's). */
  runId?: string;
}

/** What the run writes as it goes: log lines, the progress line, the artefacts after a step. */
export interface OutputPart {
  /** Log lines (stderr). */
  log: (line: string) => void;
  /** Live progress line; off in tests. */
  progress?: boolean;
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
   * with the thresholds (cli/finish-run), and rendering them twice was a large part of
   * a short run's CPU.
   */
  renderArtifacts?: (r: RunResult, dir: string) => void;
}

/** Who watches the run as it goes, and what interrupts it. */
export interface SignalsPart {
  /** Interrupt (Ctrl-C): the run stops, keeps what it has and exits 130. */
  signal?: AbortSignal;
  /** Watches the run as it goes (live metrics, `--metrics-port`). */
  observer?: RunObserver;
  /** Called after each step with the result so far. */
  onStep?: (r: RunResult) => void;
}

/** How a sweep's next step is asked for: with the result so far and a way to probe the target. */
export type NextStep = (
  r: RunResult,
  target: ProbeTarget & { sleep: (ms: number) => Promise<void> },
) => Profile['load']['steps'][number] | null | Promise<Profile['load']['steps'][number] | null>;

/** A search's hooks (sweeps): steps decided as the run goes, and steps kept from before. */
export interface SearchPart {
  /**
   * Steps decided at run time (sweeps): after the profile's steps, asked for the next one with
   * the result so far; null ends the run. `maxConnections` bounds what it may ask for, so the
   * generator can be sized up front.
   */
  nextStep?: NextStep;
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
  /**
   * Whether step `index` (from 0) starts from fresh connections: all are closed and the ramp
   * starts from 0. A sweep asks for it after a step whose connections failed, since failed
   * connections are not retried and would otherwise be missing from every later step.
   */
  freshConnections?: (r: RunResult, index: number) => boolean;
  /**
   * Asked once step `index`'s (from 0) ramp is over: why the step can no longer end stable, so it
   * ends there (a sweep's rule: sweep/early-stop); null runs the rest of it.
   */
  stopAfterRamp?: (index: number, ramp: RampOutcome) => string | null;
}

/**
 * What a step's ramp ended with (the step's own joins, failures, errors and join figures), and
 * what it asked for.
 */
export interface RampOutcome extends RampDone {
  /** The step's connections (the ramp's target). */
  target: number;
  /** The join rate the step offered. */
  joinRatePerS: number;
}

/** Everything runBenchmark is given: its parts, composed. */
export type RunOptions = ProfilePart &
  TargetPart &
  LoadPart &
  DirPart &
  OutputPart &
  SignalsPart &
  SearchPart;

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
  /**
   * `limits`: what the second's limit is read against (rtcap's own OS limits, the server's memory
   * basis and safe line), as the progress line reads it.
   */
  second(
    rec: SecondRecord,
    stepTargetConnections: number,
    clock?: PhaseClock,
    limits?: SecondLimits,
  ): void;
  step(step: StepResult): void;
}

export interface RunOutcome {
  result: RunResult;
  dir: string;
  exitCode: number;
  /** Gives the run directory's lock back, once its last artefact is written (also done at exit). */
  release?: () => void;
}
