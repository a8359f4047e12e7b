/**
 * `rtcap campaign`: the entries of a campaign — runs and searches (sweeps) — one after the
 * other into one directory, the state in campaign.json after each, and the whole capacity table
 * (capacity.json, capacity.md, report.html) rebuilt from every entry measured so far. Resumable:
 * completed entries are kept, an interrupted sweep continues through the sweep's own resume, an
 * interrupted run starts again (a run's steps depend on the ones before them).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { checkLikeForLike, type Source } from '../capacity/like-for-like.js';
import { buildCapacityFile, type TableOptions } from '../capacity/table.js';
import type { CapacityFile } from '../capacity/types.js';
import type { Campaign } from '../profile/campaign.js';
import { ABORT_ON_FAIL_PREFIX } from '../model/thresholds.js';
import { loadProfile, type LoadedProfile } from '../profile/load.js';
import { relativeTo, writeCapacityFiles } from './capacity-output.js';
import { type CampaignState, type EntryState, writeCampaignState } from './state.js';
import { readResultFile } from '../run/output.js';
import { removeRunDir } from '../run/out-dir.js';
import { runBenchmark, type RunOutcome } from '../run/runner.js';
import {
  profilePartOf,
  type LoadPart,
  type OutputPart,
  type SignalsPart,
  type TargetPart,
} from '../run/run-options.js';
import { EXIT } from '../util/exit-codes.js';
import { entrySweep } from './search.js';
import { runSweep, sweepConfig } from '../sweep/sweep.js';

/** What every entry's run shares: the target, the generator, the output and the signals. */
export type EntryRunOptions = TargetPart & LoadPart & OutputPart & SignalsPart;

export interface CampaignOptions {
  campaign: Campaign;
  state: CampaignState;
  /** The campaign directory (exists or is created). */
  dir: string;
  run: EntryRunOptions;
  /** Writes a finished entry's artefacts and returns its exit code (the CLI's finishRun). */
  finish: (outcome: RunOutcome) => number;
  /**
   * An entry is over: its artefacts written, its status, exit code and time in the state and
   * campaign.json (the live dashboard's cue, so it never shows a finished entry as running).
   */
  entryFinished?: (entry: EntryState, outcome: RunOutcome) => void;
  table?: TableOptions;
  /** Seconds since the campaign started, for the progress line (a seam for tests). */
  clock?: () => number;
}

export interface CampaignOutcome {
  state: CampaignState;
  capacity: CapacityFile | null;
  /** Runs refused from the table, one line each. */
  unlike: string[];
  exitCode: number;
}

/**
 * Every entry's profile loaded with the campaign's and the entry's overrides, an entry's
 * `search:` over its sweep section; throws ProfileError or SweepError.
 */
export async function loadEntries(
  campaign: Campaign,
  state: CampaignState,
): Promise<LoadedProfile[]> {
  const out: LoadedProfile[] = [];
  for (const [i, e] of state.entries.entries()) {
    const entry = campaign.entries[i];
    const loaded = await loadProfile(e.profile, { sets: [...campaign.set, ...entry.set] });
    if (entry.search) {
      loaded.profile.sweep = entrySweep(loaded.profile.sweep, entry, i, state.campaign_path);
      (loaded.redacted as { sweep?: unknown }).sweep = loaded.profile.sweep;
    }
    if (e.sweep) sweepConfig(loaded.profile);
    out.push(loaded);
  }
  return out;
}

function fmtElapsed(s: number): string {
  const m = Math.floor(s / 60);
  return m > 0 ? `${m}m${String(Math.round(s % 60)).padStart(2, '0')}s` : `${Math.round(s)}s`;
}

/** The campaign's one progress line, before each entry. */
export function progressLine(state: CampaignState, entry: EntryState, elapsedS: number): string {
  const done = state.entries.filter((e) => e.status === 'completed').length;
  const failed = state.entries.filter((e) => e.status === 'aborted').length;
  return `campaign ${state.name}: entry ${entry.index}/${state.entries.length} ${entry.name} (${entry.sweep ? 'sweep' : 'run'}${entry.attempts > 0 ? `, attempt ${entry.attempts + 1}` : ''}) — ${done} done${failed ? `, ${failed} aborted` : ''}, ${fmtElapsed(elapsedS)} elapsed`;
}

/** The entries measured so far (completed or aborted: an aborted run still says what it saw). */
export function measuredSources(dir: string, state: CampaignState): Source[] {
  const out: Source[] = [];
  for (const e of state.entries) {
    if (e.status !== 'completed' && e.status !== 'aborted') continue;
    const r = readResultFile(join(dir, e.dir));
    if (typeof r !== 'string') out.push({ dir: join(dir, e.dir), result: r });
  }
  return out;
}

/**
 * capacity.json, capacity.md and report.html from the entries measured so far; null when none is.
 */
export function writeCampaignCapacity(
  dir: string,
  state: CampaignState,
  table: TableOptions = {},
): { capacity: CapacityFile | null; unlike: string[] } {
  const sources = measuredSources(dir, state);
  if (sources.length === 0) return { capacity: null, unlike: [] };
  const unlike = checkLikeForLike(sources);
  if (unlike.length > 0) return { capacity: null, unlike };
  const capacity = buildCapacityFile(relativeTo(dir, sources), table);
  writeCapacityFiles(dir, capacity, `Capacity — campaign ${state.name}`);
  return { capacity, unlike };
}

/**
 * What is left of the campaign's budget (ms; null: none): its budget less every entry's wall
 * time so far, attempts together, so a resumed campaign counts what it already spent.
 */
export function campaignBudgetLeftMs(campaign: Campaign, state: CampaignState): number | null {
  if (campaign.budget === undefined) return null;
  return campaign.budget - state.entries.reduce((ms, e) => ms + e.wall_s * 1000, 0);
}

/**
 * A search entry's budget: its own (or its sweep section's), no more than the campaign has left.
 */
export function entryBudgetMs(own: number | undefined, left: number | null): number | undefined {
  if (left === null) return own;
  return Math.max(0, own === undefined ? left : Math.min(own, left));
}

async function runEntry(
  opts: CampaignOptions,
  entry: EntryState,
  loaded: LoadedProfile,
): Promise<RunOutcome> {
  const dir = join(opts.dir, entry.dir);
  const common = {
    ...opts.run,
    ...profilePartOf(loaded),
    outDir: dir,
  };
  if (entry.sweep) {
    const prev = existsSync(join(dir, 'result.json')) ? readResultFile(dir) : null;
    const resumeFrom = prev && typeof prev !== 'string' && prev.steps.length > 0 ? prev : undefined;
    if (!resumeFrom) removeRunDir(dir);
    const budget = entryBudgetMs(
      opts.campaign.entries[entry.index - 1].budget ?? loaded.profile.sweep?.budget,
      campaignBudgetLeftMs(opts.campaign, opts.state),
    );
    entry.budget_s = budget === undefined ? null : Math.round(budget / 1000);
    return runSweep({
      ...common,
      resumeFrom,
      budgetMs: budget,
      spentBeforeMs: entry.wall_s * 1000,
    });
  }
  // A run's later steps build on its earlier ones: an interrupted run starts again.
  removeRunDir(dir);
  return runBenchmark(common);
}

export async function runCampaign(
  opts: CampaignOptions,
  loaded: readonly LoadedProfile[],
): Promise<CampaignOutcome> {
  const { state } = opts;
  const started = Date.now();
  const clock = opts.clock ?? (() => (Date.now() - started) / 1000);
  mkdirSync(resolve(opts.dir), { recursive: true });
  writeCampaignState(opts.dir, state);
  let interrupted = false;
  let stopReason: string | null = null;
  for (const [i, entry] of state.entries.entries()) {
    if (entry.status === 'completed' || entry.status === 'skipped') continue;
    if (opts.run.signal?.aborted) {
      interrupted = true;
      break;
    }
    const left = campaignBudgetLeftMs(opts.campaign, state);
    if (left !== null && left <= 0) {
      entry.status = 'skipped';
      entry.skip_reason = `the campaign's budget (${Math.round(opts.campaign.budget! / 1000)} s) was spent before it started`;
      opts.run.log(
        `campaign ${state.name}: entry ${entry.index}/${state.entries.length} ${entry.name} skipped — ${entry.skip_reason}`,
      );
      writeCampaignState(opts.dir, state);
      continue;
    }
    opts.run.log(progressLine(state, entry, clock()));
    entry.status = 'running';
    entry.attempts += 1;
    writeCampaignState(opts.dir, state);
    const t0 = Date.now();
    const outcome = await runEntry(opts, entry, loaded[i]);
    const code = opts.finish(outcome);
    // The entry's directory is done with (a resume may replace it): its lock is given back.
    outcome.release?.();
    entry.wall_s = Math.round(entry.wall_s + (Date.now() - t0) / 1000);
    entry.exit_code = code;
    // A run stopped by an abort_on_fail threshold exits 99 like one that merely failed a threshold
    // at the end, but it did not run all its steps: it is aborted (and a resume runs it again).
    entry.status =
      code === EXIT.interrupted
        ? 'interrupted'
        : (code === EXIT.ok || code === EXIT.thresholds) && outcome.result.status === 'completed'
          ? 'completed'
          : 'aborted';
    writeCampaignState(opts.dir, state);
    opts.entryFinished?.(entry, outcome);
    const table = writeCampaignCapacity(opts.dir, state, opts.table);
    for (const u of table.unlike) opts.run.log(`campaign: not like for like, no table: ${u}`);
    if (entry.status === 'interrupted') {
      interrupted = true;
      break;
    }
    // abort_on_fail stops the campaign too (k6's abortOnFail): the entries after it are not run.
    const why = outcome.result.abort_reason;
    if (why?.startsWith(ABORT_ON_FAIL_PREFIX)) {
      stopReason = `entry ${entry.name}: ${why}`;
      opts.run.log(`campaign stopped: ${stopReason}`);
      break;
    }
  }
  state.status = interrupted ? 'interrupted' : stopReason ? 'stopped' : 'completed';
  if (stopReason) state.stop_reason = stopReason;
  else delete state.stop_reason;
  state.finished_at = interrupted ? null : new Date().toISOString();
  writeCampaignState(opts.dir, state);
  const { capacity, unlike } = writeCampaignCapacity(opts.dir, state, opts.table);
  // A skipped entry leaves its rows unmeasured: the table is not whole.
  const aborted = state.entries.some((e) => e.status === 'aborted' || e.status === 'skipped');
  const exitCode = interrupted
    ? EXIT.interrupted
    : stopReason
      ? EXIT.thresholds
      : unlike.length > 0 || aborted
        ? EXIT.aborted
        : EXIT.ok;
  return { state, capacity, unlike, exitCode };
}
