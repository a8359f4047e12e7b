/**
 * `rtcap sweep`: one run whose steps vary one driver of `load.steps.0` — an explicit list of
 * values, or a search (sweep/plan: geometric growth, then bisection to the knee).
 *
 * The next value is a pure function of the steps measured so far (`planNextSweepStep`), so a
 * sweep resumed from its result.json continues exactly where it stopped, mid-bisection too:
 * the kept steps are handed to the runner as `previousSteps` and the search goes on from them.
 * Before each search step the recovery probe (recovery/probe) waits until the server is
 * back to its baseline; a time budget (sweep.budget, a campaign entry's) stops the search
 * before a step that would end past it.
 */
import { readFileSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Profile, Step, Sweep } from '../profile/schema.js';
import type { RunResult, StepResult } from '../result/result.js';
import { runBenchmark, type RunOutcome } from '../run/runner.js';
import type {
  DirPart,
  LoadPart,
  OutputPart,
  ProfilePart,
  SignalsPart,
  TargetPart,
} from '../run/run-options.js';
import {
  historyOf,
  kneeRecord,
  type SweepPoint,
  type SweepRecord,
  type SweepResult,
} from './record.js';
import { STOPPED_EARLY } from '../result/cut-short.js';
import { settledByRamp } from './early-stop.js';
import { sweepMaxConnections, templateValue } from './spec.js';
import { SweepSteps } from './steps.js';

export class SweepError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SweepError';
  }
}

/** A sweep's options: a run's parts but the search's (the sweep gives those) and the run id. */
export interface SweepOptions
  extends ProfilePart, TargetPart, LoadPart, Omit<DirPart, 'runId'>, OutputPart, SignalsPart {
  /** A sweep's result.json to continue (its directory must be `outDir`). */
  resumeFrom?: SweepResult;
  /** Called with the sweep's decision before each step and when it stops. */
  onDecision?: (line: string) => void;
  /**
   * Time budget in ms, over sweep.budget (a campaign entry's); no step starts that would end past
   * it.
   */
  budgetMs?: number;
  /** What earlier attempts of this sweep spent of the budget (a resumed campaign entry). */
  spentBeforeMs?: number;
}

/**
 * Resolves the sweep section and its first value; throws SweepError for a profile that cannot
 * sweep.
 */
export function sweepConfig(profile: Profile): { cfg: Sweep; template: Step; start: number } {
  const cfg = profile.sweep;
  if (!cfg)
    throw new SweepError(
      'the profile has no `sweep:` section (driver, and values or max): see docs/PROFILE.md',
    );
  const template = profile.load.steps[0];
  const start = cfg.values
    ? cfg.values[0]
    : (cfg.start ?? templateValue(profile, template, cfg.driver));
  if (start === undefined)
    throw new SweepError(`sweep.start: required, load.steps.0 has no ${cfg.driver}`);
  return { cfg, template, start };
}

/**
 * Steps of a previous attempt to keep: the complete ones (and those the search stopped early)
 * before the first step cut short otherwise, with their sweep points. The timeseries of the
 * dropped step is cut so it is not shown twice.
 */
export function resumableSteps(
  prev: SweepResult,
  cfg: Sweep,
): { steps: StepResult[]; points: SweepPoint[] } {
  if (prev.sweep && prev.sweep.driver !== cfg.driver) {
    throw new SweepError(
      `cannot resume: that run swept ${prev.sweep.driver}, the profile sweeps ${cfg.driver}`,
    );
  }
  const steps: StepResult[] = [];
  for (const s of prev.steps) {
    // A step the search stopped early (sweep/early-stop) ended as it was meant to: kept.
    const stoppedEarly = s.cut_short?.by.startsWith(STOPPED_EARLY) === true;
    if ((s.complete === false && !stoppedEarly) || s.index !== steps.length + 1) break;
    steps.push(s);
  }
  const points: SweepPoint[] = [];
  for (const s of steps) {
    const p = prev.sweep?.points.find((x) => x.step === s.index);
    const fromParams = (
      cfg.driver === 'subscribers' ? s.params.connections : s.params[cfg.driver]
    ) as number | undefined;
    const value = p?.value ?? (typeof fromParams === 'number' ? fromParams : null);
    if (value === null)
      throw new SweepError(`cannot resume: step ${s.index} has no ${cfg.driver} value`);
    points.push({
      ...p,
      step: s.index,
      value,
      phase: p?.phase ?? (cfg.values ? 'explicit' : 'grow'),
    });
  }
  return { steps, points };
}

function truncateTimeseries(dir: string, keepSteps: number): void {
  const path = join(dir, 'timeseries.ndjson');
  if (!existsSync(path)) return;
  const kept = readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => {
      if (!l.trim()) return false;
      try {
        return (JSON.parse(l) as { step: number }).step <= keepSteps;
      } catch {
        return false; // a line cut by the interruption
      }
    });
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, kept.length ? kept.join('\n') + '\n' : '');
  renameSync(tmp, path);
}

/**
 * Whether the last step lost connections (failed or dropped). Those are not retried: after such a
 * step the next one starts afresh, or a bisection below a broken value would run short of members
 * without knowing it.
 */
function lostConnections(r: RunResult): boolean {
  const last = r.steps[r.steps.length - 1];
  return last !== undefined && (last.connections.failed > 0 || last.connections.disconnected > 0);
}

export async function runSweep(
  opts: SweepOptions,
): Promise<RunOutcome & { result: SweepResult; sweep: SweepRecord }> {
  const { cfg, template, start } = sweepConfig(opts.profile);
  const profile: Profile = structuredClone(opts.profile);
  const budgetMs = opts.budgetMs ?? cfg.budget ?? null;
  const record: SweepRecord = {
    driver: cfg.driver,
    mode: cfg.values ? 'values' : 'search',
    points: [],
    stop_reason: null,
    stop_kind: null,
    budget_s: budgetMs === null ? null : budgetMs / 1000,
    knee: null,
    resumed_at: [],
  };
  let previous: StepResult[] = [];
  if (opts.resumeFrom) {
    if (!opts.outDir)
      throw new SweepError('a resumed sweep writes into the directory it resumes (outDir)');
    const kept = resumableSteps(opts.resumeFrom, cfg);
    previous = kept.steps;
    record.points = kept.points;
    record.resumed_at = [...(opts.resumeFrom.sweep?.resumed_at ?? []), new Date().toISOString()];
    truncateTimeseries(opts.outDir, previous.length);
  }
  const steps = new SweepSteps({
    profile,
    cfg,
    template,
    start,
    record,
    say: opts.onDecision ?? opts.log,
    budgetMs,
    spentBeforeMs: opts.spentBeforeMs ?? 0,
  });
  profile.load.steps = record.points.map((p) => steps.specOf(p.value, p.phase, p.scale));
  const attach = (r: RunResult) => {
    (r as SweepResult).sweep = record;
  };

  const outcome = await runBenchmark({
    ...opts,
    profile,
    nextStep: (r, target) => {
      attach(r);
      return steps.next(r, target);
    },
    annotateStep: (s) => steps.annotate(s),
    maxConnections: sweepMaxConnections(cfg, template, steps.specContext),
    previousSteps: previous,
    runId: opts.resumeFrom?.run_id,
    freshConnections: lostConnections,
    onStep: (r) => {
      attach(r);
      opts.onStep?.(r);
    },
    // A search ends a step whose ramp already settled its verdict (an explicit list of values
    // measures every step whole).
    stopAfterRamp: cfg.values
      ? undefined
      : (_index, ramp) => settledByRamp(ramp, profile.slo, profile.generator),
  });
  const result = outcome.result as SweepResult;
  attach(result);
  record.knee = kneeRecord(historyOf(record, result.steps));
  if (record.stop_reason === null && result.status !== 'completed')
    record.stop_reason = `run ${result.status}${result.abort_reason ? `: ${result.abort_reason}` : ''} (resume with --resume ${outcome.dir})`;
  return { ...outcome, result, sweep: record };
}
