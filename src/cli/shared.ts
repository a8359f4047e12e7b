/**
 * What the commands that run benchmarks check before anything starts, each a refusal with one line
 * and exit 2: the profile and its thresholds, the changes table, a shared target for a split run,
 * the run directory, the live metrics' port. Also `log`, the stderr line every command writes.
 * Their options are in run-flags.ts, Ctrl-C in interrupt.ts, the end of a run in finish-run.ts.
 */
import { loadProfile, type LoadedProfile } from '../profile/load.js';
import { ProfileError } from '../profile/errors.js';
import { thresholdProblems } from '../validate/file-check.js';
import type { RunObserver } from '../run/runner.js';
import { redactText } from '../redact/redact.js';
import { EXIT } from '../util/exit-codes.js';
import { prepareOutDir } from '../run/out-dir.js';
import { checkChangesTable } from '../run/changes-table.js';

export const log = (line: string) => process.stderr.write(`${redactText(line)}\n`);

/**
 * Live metrics for a command that takes --metrics-port (run, sweep, campaign): the observer to
 * give the runner and what to call when the command ends. Exit 2 when the port cannot be bound.
 */
export async function liveMetricsOrExit(args: {
  'metrics-port'?: number;
  'metrics-host'?: string;
}): Promise<{ observer?: RunObserver; close: () => Promise<void> } | null> {
  const port = args['metrics-port'];
  if (port === undefined) return { close: async () => undefined };
  try {
    // Loaded only when asked for: prom-client is a cost every run without --metrics-port would pay.
    const { serveLiveMetrics } = await import('../run/metrics-server.js');
    const live = await serveLiveMetrics({ port, host: args['metrics-host'] });
    log(`live metrics: ${live.url}`);
    return { observer: live.metrics, close: live.close };
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`);
    process.exitCode = EXIT.usage;
    return null;
  }
}

/**
 * The profile, or null after printing why (exit code 2 set). Threshold expressions are checked here
 * too.
 */
export async function loadProfileOrExit(
  path: string,
  sets: string[],
  opts: { allowUnsetEnv?: boolean } = {},
): Promise<LoadedProfile | null> {
  let loaded: LoadedProfile;
  try {
    loaded = await loadProfile(path, { sets, ...opts });
  } catch (e) {
    if (e instanceof ProfileError) {
      process.stderr.write(`${e.message}\n`);
      process.exitCode = EXIT.usage;
      return null;
    }
    throw e;
  }
  const bad = thresholdProblems(loaded, path);
  if (bad.length) {
    process.stderr.write(bad.join('\n') + '\n');
    process.exitCode = EXIT.usage;
    return null;
  }
  return loaded;
}

/**
 * A Postgres Changes run against a server rtcap did not start: false (exit 2, one line) when the
 * table the loader writes is not as it needs (run/changes-table), before anything starts.
 */
export async function changesTableOrExit(
  loaded: LoadedProfile,
  url: string | undefined,
): Promise<boolean> {
  const problem = await checkChangesTable(loaded.profile, url ?? loaded.profile.target.url);
  if (problem === null) return true;
  process.stderr.write(`rtcap: ${redactText(problem)}\n`);
  process.exitCode = EXIT.usage;
  return false;
}

/**
 * A run split over machines (segments, Kubernetes pods) needs one server every part loads:
 * without --url or target.url each part would start its own built-in server, one part's
 * messages would never reach another's connections, and the merged result would mean nothing.
 * False (exit 2, one line) when there is none.
 */
export function refuseUnsharedTarget(
  loaded: LoadedProfile,
  url: string | undefined,
  who: string,
): boolean {
  if (
    url !== undefined ||
    loaded.profile.target.url !== undefined ||
    loaded.unsetEnv.some((u) => u.field === 'target.url')
  )
    return true;
  process.stderr.write(
    `${who}: a split run needs one shared target: give --url or target.url (without one, each part starts its own built-in server and its messages never reach the other parts' connections)\n`,
  );
  process.exitCode = EXIT.usage;
  return false;
}

/**
 * A run writes into an empty directory: an old run's timeseries.ndjson or server.log would
 * otherwise sit beside the new result.json, a directory that disagrees with itself. With
 * --force an earlier run there is deleted first, and nothing else (run/out-dir.ts). False
 * (exit 2, one line) when it is refused.
 */
export function checkOutDir(
  dir: string | undefined,
  force: boolean,
  profilePath: string | null,
): boolean {
  if (dir === undefined) return true;
  const problem = prepareOutDir(dir, force, { profilePath: profilePath ?? undefined });
  if (problem === null) return true;
  process.stderr.write(`${problem}\n`);
  process.exitCode = EXIT.usage;
  return false;
}
