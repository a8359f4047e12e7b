/**
 * `rtcap sweep PROFILE [--resume DIR]`: the profile's `sweep:` section drives one run whose
 * steps vary one driver, up to the knee (src/sweep/sweep.ts). Same artefacts and exit codes
 * as `rtcap run`; thresholds are judged on the steps up to the knee.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Argv } from 'yargs';
import { EXIT } from '../util/exit-codes.js';
import { checked, dir, UsageError } from './flags.js';
import { runSweep, sweepConfig, SweepError } from '../sweep/sweep.js';
import type { SweepResult } from '../sweep/record.js';
import type { LoadedProfile } from '../profile/load.js';
import { closeDashboard, dashboardOrExit, withDashboard } from './dashboard-flag.js';
import { benchmarkOptions, runContextFrom } from './run-flags.js';
import {
  checkOutDir,
  liveMetricsOrExit,
  changesTableOrExit,
  loadProfileOrExit,
  log,
} from './shared.js';
import { finishRun } from './finish-run.js';
import { interruptible } from './interrupt.js';
import { refuseLink } from './refuse-link.js';
import { profilePartOf } from '../run/run-options.js';

function readResume(dir: string): SweepResult | string {
  const path = join(dir, 'result.json');
  if (!existsSync(path)) return `--resume ${dir}: no result.json there`;
  try {
    const r = JSON.parse(readFileSync(path, 'utf8')) as SweepResult;
    if (!Array.isArray(r.steps)) return `--resume ${dir}: result.json has no steps`;
    return r;
  } catch (e) {
    return `--resume ${dir}: result.json is not readable JSON (${(e as Error).message})`;
  }
}

/** The interrupted sweep in `dir`, if it is one of this profile's; else a SweepError. */
function resumable(dir: string, profile: LoadedProfile['profile']): SweepResult {
  const r = readResume(dir);
  if (typeof r === 'string') throw new SweepError(r);
  if (r.profile.name !== profile.name || r.profile.scenario !== profile.scenario) {
    throw new SweepError(
      `--resume ${dir}: that run is ${r.profile.name} (${r.profile.scenario}), not ${profile.name} (${profile.scenario})`,
    );
  }
  log(
    `resuming ${r.run_id}: ${r.steps.length} step${r.steps.length === 1 ? '' : 's'} done, status ${r.status}`,
  );
  return r;
}

/**
 * The profile's sweep section checked, and the sweep to resume with --resume; null after
 * printing why not (exit 2).
 */
function sweepOrExit(
  loaded: LoadedProfile,
  resume: string | undefined,
): { resumeFrom: SweepResult | undefined } | null {
  try {
    sweepConfig(loaded.profile);
    return { resumeFrom: resume === undefined ? undefined : resumable(resume, loaded.profile) };
  } catch (e) {
    if (!(e instanceof SweepError)) throw e;
    process.stderr.write(`${loaded.path}: ${e.message}\n`);
    process.exitCode = EXIT.usage;
    return null;
  }
}

export function sweepCommand(y: Argv): Argv {
  return y.command(
    'sweep <profile>',
    "sweep one driver of a profile up to the knee (the profile's sweep: section); one run directory",
    (c) =>
      benchmarkOptions(c, 'sweep.max=4000')
        .option(
          'resume',
          checked('resume', dir, {
            describe: 'continue an interrupted sweep from its run directory',
          }),
        )
        .check((a) => {
          if (a.resume !== undefined && a.out !== undefined && a.resume !== a.out)
            throw new UsageError('--resume writes into the directory it resumes: leave out --out');
          return true;
        }),
    async (args) => {
      const loaded = await loadProfileOrExit(args.profile as string, args.set as string[]);
      if (!loaded || refuseLink(loaded.profile)) return;
      if (!(await changesTableOrExit(loaded, args.url as string | undefined))) return;
      const sweep = sweepOrExit(loaded, args.resume);
      if (!sweep) return;
      const { resumeFrom } = sweep;
      // --resume writes into the directory it resumes; a new sweep wants an empty one.
      if (args.resume === undefined && !checkOutDir(args.out, args.force as boolean, loaded.path))
        return;
      const live = await liveMetricsOrExit(args);
      if (!live) return;
      const dash = await dashboardOrExit(args, 'sweep');
      if (dash === null) return live.close();
      const { signal, dispose, exitCode } = interruptible();
      try {
        const outcome = await runSweep({
          ...profilePartOf(loaded),
          outDir: args.resume ?? args.out,
          ...withDashboard(runContextFrom(args, signal, live.observer), dash),
          resumeFrom,
        });
        process.exitCode = exitCode(finishRun(outcome));
        dash?.runFinished(outcome.dir, outcome.result, process.exitCode);
      } catch (e) {
        if (!(e instanceof SweepError)) throw e;
        process.stderr.write(`${loaded.path}: ${e.message}\n`);
        process.exitCode = EXIT.usage;
      } finally {
        dispose();
        await live.close();
        await closeDashboard(dash, args);
      }
    },
  );
}
