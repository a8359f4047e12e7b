/**
 * `rtcap campaign CAMPAIGN.yaml [--resume DIR]`: runs a campaign's profiles and sweeps in order
 * into one directory and builds the whole capacity table from them (src/campaign/campaign.ts).
 * Exit 0 when every entry completed, 2 on a campaign or profile error, 3 when an entry aborted
 * (the table is still written, with the reason in its rows), 130 when interrupted.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ArgumentsCamelCase, Argv } from 'yargs';
import type { TableOptions } from '../capacity/table.js';
import { campaignSchema, type Campaign } from '../profile/campaign.js';
import { ProfileError } from '../profile/errors.js';
import { loadYamlFile } from '../profile/yaml-file.js';
import { renderCapacityTerminal } from '../report/capacity.js';
import { loadEntries, runCampaign, type CampaignOutcome } from '../campaign/campaign.js';
import {
  planCampaign,
  readCampaignState,
  resumeState,
  type CampaignState,
} from '../campaign/state.js';
import { checkChangesTable } from '../run/changes-table.js';
import { makeRunId } from '../run/output.js';
import { redactText } from '../redact/redact.js';
import { EXIT } from '../util/exit-codes.js';
import { checked, checkedPositional, dir, file, outDir, UsageError } from './flags.js';
import { SweepError } from '../sweep/sweep.js';
import { tableOptionOptions, tableOptionsFrom } from './capacity.js';
import { closeDashboard, dashboardOrExit, withDashboard } from './dashboard-flag.js';
import { finishRun } from './finish-run.js';
import { interruptible } from './interrupt.js';
import { liveMetricsOrExit, log } from './shared.js';
import { runContextFrom, runOptions } from './run-flags.js';

/** One usage line on stderr, exit 2; undefined, so a step of the preparation can return it. */
function usage(message: string): undefined {
  process.stderr.write(`${message}\n`);
  process.exitCode = EXIT.usage;
  return undefined;
}

/** The campaign's analysis section, with command-line options over it. */
export function campaignTableOptions(c: Campaign, cli: TableOptions): TableOptions {
  const a = c.analysis;
  return {
    safe_lines: {
      ...(a.cpu_safe_pct !== undefined ? { cpu_pct: a.cpu_safe_pct } : {}),
      ...(a.mem_safe_pct !== undefined ? { mem_pct: a.mem_safe_pct } : {}),
      ...cli.safe_lines,
    },
    presence_quota_per_s: cli.presence_quota_per_s ?? a.presence_quota_per_s,
    topic_updates_per_s: cli.topic_updates_per_s ?? a.topic_updates_per_s,
  };
}

/** The flags of `rtcap campaign`: the file or --resume, the output and the run options. */
function campaignOptions(c: Argv) {
  return runOptions(tableOptionOptions(c))
    .positional(
      'campaign',
      checkedPositional('campaign', file, {
        describe: 'campaign YAML (with --resume: default, the one the directory was started from)',
      }),
    )
    .option(
      'resume',
      checked('resume', dir, {
        describe: 'continue an interrupted campaign from its directory',
      }),
    )
    .option(
      'out',
      checked('out', outDir, {
        describe: 'campaign directory (default reports/<time>-<name>/)',
      }),
    )
    .check((a) => {
      if (a.resume === undefined && a.campaign === undefined)
        throw new UsageError('give a campaign file, or --resume DIR');
      if (a.resume !== undefined && a.out !== undefined && a.resume !== a.out)
        throw new UsageError('--resume writes into the directory it resumes: leave out --out');
      return true;
    });
}

type CampaignArgs = ArgumentsCamelCase<
  ReturnType<typeof campaignOptions> extends Argv<infer T> ? T : never
>;

/** A campaign ready to run: its file, its state (planned or resumed), directory and entries. */
interface PreparedCampaign {
  campaign: Campaign;
  state: CampaignState;
  dir: string;
  resumed: boolean;
  loaded: Awaited<ReturnType<typeof loadEntries>>;
}

/**
 * The campaign file, the state a resume continues (or a new plan) and every entry's profile,
 * or undefined after one usage line (exit 2).
 */
async function prepareCampaign(args: CampaignArgs): Promise<PreparedCampaign | undefined> {
  const now = new Date();
  let saved: CampaignState | undefined;
  if (args.resume !== undefined) {
    const s = readCampaignState(args.resume);
    if (typeof s === 'string') return usage(`--resume ${s}`);
    saved = s;
  }
  const path = (args.campaign as string | undefined) ?? saved!.campaign_path;
  let campaign: Campaign;
  try {
    campaign = loadYamlFile(path, campaignSchema);
  } catch (e) {
    if (e instanceof ProfileError) return usage(e.message);
    throw e;
  }
  let state = planCampaign(campaign, path, now);
  if (saved) {
    try {
      state = resumeState(saved, state, now);
    } catch (e) {
      return usage(`--resume ${args.resume}: ${(e as Error).message}`);
    }
  }
  const dir =
    args.resume ??
    (args.out as string | undefined) ??
    join('reports', makeRunId(campaign.name, now));
  if (!saved && existsSync(join(dir, 'campaign.json')))
    return usage(`${dir}: already holds a campaign; continue it with --resume ${dir}`);
  let loaded;
  try {
    loaded = await loadEntries(campaign, state);
  } catch (e) {
    if (e instanceof ProfileError || e instanceof SweepError) return usage(e.message);
    throw e;
  }
  return { campaign, state, dir, resumed: saved !== undefined, loaded };
}

/**
 * Every entry still to run that inserts rows into a server rtcap did not start has its table
 * checked first (run/changes-table), as `rtcap run` does: one line naming the entry and the
 * problem (exit 2) before any entry starts, instead of an entry that measures failed inserts.
 */
async function entryTablesOk(args: CampaignArgs, p: PreparedCampaign): Promise<boolean> {
  for (const [i, entry] of p.state.entries.entries()) {
    if (entry.status === 'completed') continue;
    const { profile } = p.loaded[i];
    const problem = await checkChangesTable(
      profile,
      (args.url as string | undefined) ?? profile.target.url,
    );
    if (problem !== null) {
      usage(`rtcap campaign: entry ${entry.index} (${entry.name}): ${redactText(problem)}`);
      return false;
    }
  }
  return true;
}

/** What the terminal gets once the entries are over: the table, what was written, how to resume. */
function reportCampaign(outcome: CampaignOutcome, state: CampaignState, dir: string): void {
  if (outcome.capacity)
    process.stderr.write(
      `\ncapacity (campaign ${state.name}):\n${renderCapacityTerminal(outcome.capacity)}\n`,
    );
  for (const u of outcome.unlike) log(`not like for like: ${u}`);
  const wall = state.entries.reduce((a, e) => a + e.wall_s, 0);
  log(
    `wrote ${dir}/ (campaign.json, capacity.json, capacity.md, report.html; ${state.entries.length} entry directories) — entries took ${wall} s`,
  );
  if (outcome.exitCode === EXIT.interrupted)
    log(`interrupted: continue with rtcap campaign --resume ${dir}`);
}

/** Runs the prepared campaign's entries with live metrics and the dashboard when asked for. */
async function runCampaignEntries(args: CampaignArgs, p: PreparedCampaign): Promise<void> {
  const { campaign, state, dir } = p;
  if (p.resumed)
    log(
      `resuming campaign ${state.name}: ${state.entries.filter((e) => e.status === 'completed').length} of ${state.entries.length} entries done`,
    );
  // One live metrics endpoint for the whole campaign: its counters run on across the entries.
  const live = await liveMetricsOrExit(args);
  if (!live) return;
  const dash = await dashboardOrExit(args, 'campaign');
  if (dash === null) return live.close();
  dash?.campaign(state);
  // Entries a resume keeps link their files from the start, like those finished from now on.
  for (const e of state.entries)
    if (e.status === 'completed') dash?.entryFiles(e.index, join(dir, e.dir));
  const { signal, dispose, exitCode } = interruptible();
  try {
    const outcome = await runCampaign(
      {
        campaign,
        state,
        dir,
        run: withDashboard(runContextFrom(args, signal, live.observer), dash),
        finish: finishRun,
        // After the entry's status is set, so the page never shows a finished one running.
        entryFinished: (entry, o) => {
          dash?.runFinished(o.dir, o.result, entry.exit_code ?? EXIT.aborted);
          dash?.entryFiles(entry.index, o.dir);
        },
        table: campaignTableOptions(campaign, tableOptionsFrom(args)),
      },
      p.loaded,
    );
    reportCampaign(outcome, state, dir);
    process.exitCode = exitCode(outcome.exitCode);
    dash?.finished({
      status: state.status,
      exitCode: process.exitCode,
      abortReason: state.stop_reason ?? null,
      dir,
    });
  } finally {
    dispose();
    await live.close();
    await closeDashboard(dash, args);
  }
}

export function campaignCommand(y: Argv): Argv {
  return y.command(
    'campaign [campaign]',
    'run a campaign of profiles and sweeps into one directory and build the whole capacity table (docs/METHOD.md §7 + §8)',
    campaignOptions,
    async (args) => {
      const prepared = await prepareCampaign(args);
      if (prepared && (await entryTablesOk(args, prepared)))
        await runCampaignEntries(args, prepared);
    },
  );
}
