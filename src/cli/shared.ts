/**
 * What `run`, `sweep` and `quotas` share: their options, loading the profile (exit 2 on any
 * problem), Ctrl-C handling, and the end of a run — artefacts, terminal summary, thresholds, exit
 * code.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Argv } from 'yargs';
import { loadProfile, type LoadedProfile } from '../profile/load.js';
import { ProfileError } from '../profile/errors.js';
import { thresholdProblems } from '../validate/file-check.js';
import type { RunObserver, RunOutcome } from '../run/runner.js';
import type { LoadPart, OutputPart, SignalsPart, TargetPart } from '../run/run-options.js';
import { redactText } from '../redact/redact.js';
import { EXIT } from '../util/exit-codes.js';
import { checked, usableCpus, int, outDir, port, wsUrl } from './flags.js';
import { prepareOutDir } from '../run/out-dir.js';
import { checkChangesTable } from '../run/changes-table.js';
import {
  runArtifactHooks,
  terminalSummary,
  writeArtifacts,
  type ResultFile,
} from '../artefacts/render.js';
import { dashboardOptions } from './dashboard-flag.js';

export const log = (line: string) => process.stderr.write(`${redactText(line)}\n`);

/**
 * The most generator processes a command line may ask for (the profile's load.workers has its own
 * bound).
 */
export const MAX_WORKERS = 1024;

/** The options `run` and `sweep` share: the profile, the output, overrides, and the run options. */
export function benchmarkOptions<T>(c: Argv<T>, setExample: string) {
  return runOptions(
    c
      .positional('profile', { type: 'string', demandOption: true, describe: 'profile YAML file' })
      .option(
        'out',
        checked('out', outDir, {
          describe:
            "directory for this run's files (default reports/<run-id>/); refused if it holds files, unless --force",
        }),
      )
      .option('force', {
        type: 'boolean',
        default: false,
        describe:
          'with --out: replace the earlier rtcap run there (refused for any other directory)',
      })
      .option('set', {
        type: 'string',
        array: true,
        default: [] as string[],
        describe: `override a profile field: --set ${setExample}`,
      }),
  );
}

/**
 * The options of every command that runs benchmarks (run, sweep, campaign): the target, the
 * generator, progress, live metrics.
 */
export function runOptions<T>(c: Argv<T>) {
  return dashboardOptions(c)
    .option(
      'url',
      checked('url', wsUrl, { describe: 'WebSocket URL of the target (overrides target.url)' }),
    )
    .option(
      'workers',
      checked('workers', int(1, MAX_WORKERS), {
        describe: 'generator processes (default: profile load.workers, auto)',
      }),
    )
    .option(
      'server-cpus',
      checked('server-cpus', usableCpus(), {
        describe: 'pin the built-in server to these CPUs (taskset list, e.g. 1)',
      }),
    )
    .option(
      'generator-cpus',
      checked('generator-cpus', usableCpus(), {
        describe: 'pin the generator to these CPUs (e.g. 0)',
      }),
    )
    .option('progress', {
      type: 'boolean',
      default: true,
      describe: 'live progress line on stderr',
    })
    .option(
      'metrics-port',
      checked('metrics-port', port, {
        describe:
          'serve live Prometheus/OpenMetrics metrics at http://HOST:PORT/metrics while running (0: any free port)',
      }),
    )
    .option('metrics-host', {
      type: 'string',
      default: '127.0.0.1',
      describe: 'address --metrics-port listens on (0.0.0.0 for a Prometheus on another host)',
    });
}

/** Where the target is, from --url and --server-cpus. */
export function targetFrom(args: { url?: string; 'server-cpus'?: string }): TargetPart {
  return { url: args.url, serverCpus: args['server-cpus'] ?? null };
}

/** The generator's processes and CPUs, from --workers and --generator-cpus. */
export function loadFrom(args: { workers?: number; 'generator-cpus'?: string }): LoadPart {
  return { workers: args.workers, generatorCpus: args['generator-cpus'] ?? null };
}

/** Log lines on stderr, the progress line unless --no-progress, the artefacts after each step. */
export function outputFrom(args: { progress?: boolean }): OutputPart {
  return { log, progress: args.progress !== false, ...runArtifactHooks() };
}

/** The Ctrl-C signal and the live metrics' observer. */
export function signalsFrom(signal: AbortSignal, observer: RunObserver | undefined): SignalsPart {
  return { signal, ...(observer ? { observer } : {}) };
}

/**
 * What a run (or a sweep, or each entry of a campaign) takes from the command line, the Ctrl-C
 * signal and the live metrics: its target, load, output and signals parts.
 */
export function runContextFrom(
  args: {
    url?: string;
    workers?: number;
    'server-cpus'?: string;
    'generator-cpus'?: string;
    progress?: boolean;
  },
  signal: AbortSignal,
  observer: RunObserver | undefined,
): TargetPart & LoadPart & OutputPart & SignalsPart {
  return {
    ...targetFrom(args),
    ...loadFrom(args),
    ...outputFrom(args),
    ...signalsFrom(signal, observer),
  };
}

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

/**
 * The shell's convention for a process ended by a signal: 128 + its number (SIGINT 130, SIGTERM
 * 143).
 */
const SIGNAL_EXIT: Record<'SIGINT' | 'SIGTERM', number> = {
  SIGINT: EXIT.interrupted,
  SIGTERM: EXIT.terminated,
};

/**
 * First SIGINT/SIGTERM aborts the signal (the run stops what it started and writes what it
 * has); the second exits at once (the process 'exit' hooks still stop the built-in server and
 * remove its files). `exitCode` turns an interrupted run's code into the received signal's.
 */
export function interruptible(): {
  signal: AbortSignal;
  dispose: () => void;
  exitCode: (code: number) => number;
} {
  const ac = new AbortController();
  let received: keyof typeof SIGNAL_EXIT | null = null;
  const onSignal = (sig: keyof typeof SIGNAL_EXIT) => {
    if (received === null) {
      received = sig;
      process.stderr.write(
        '\nrtcap: stopping — writing what was measured (Ctrl-C again to quit at once)\n',
      );
      // The signal's name is the abort's reason: a step it cuts short says what cut it.
      ac.abort(sig);
    } else {
      process.exit(SIGNAL_EXIT[sig]);
    }
  };
  const onInt = () => onSignal('SIGINT');
  const onTerm = () => onSignal('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return {
    signal: ac.signal,
    dispose: () => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
    },
    exitCode: (code) => (code === EXIT.interrupted && received ? SIGNAL_EXIT[received] : code),
  };
}

/**
 * The terminal's width for the summary chart; undefined (the default) when stdout is a file or
 * pipe.
 */
export function chartWidth(): number | undefined {
  return process.stdout.isTTY && process.stdout.columns
    ? Math.min(process.stdout.columns, 200)
    : undefined;
}

/** The files a run's directory holds as this run wrote them (a full disk leaves some out). */
function writtenLine(dir: string, problems: string[]): string {
  const files = ['result.json', 'summary.md', 'report.html', 'timeseries.ndjson'];
  const failed = (name: string) => problems.some((p) => p.startsWith(`${name}: `));
  const written = files.filter((name) => existsSync(join(dir, name)) && !failed(name));
  const missing = files.filter((name) => !written.includes(name));
  return `wrote ${dir}/ (${written.join(', ') || 'nothing'})${missing.length ? `; not written: ${missing.join(', ')}` : ''}`;
}

/**
 * Rewrites every artefact with the final result (analysis, thresholds), prints the summary and
 * returns the exit code: the run's own when it did not complete, else 99 if a threshold failed.
 */
export function finishRun(outcome: RunOutcome): number {
  const result = outcome.result as ResultFile;
  const problems = writeArtifacts(result, outcome.dir);
  for (const p of problems) log(`warning: ${p}`);
  // The results go to stdout, everything else to stderr: `rtcap run … > summary.txt` keeps only
  // them.
  log(writtenLine(outcome.dir, problems));
  process.stdout.write(terminalSummary(result, chartWidth()));
  outcome.release?.();
  if (outcome.exitCode !== EXIT.ok) return outcome.exitCode;
  return result.thresholds && !result.thresholds.pass ? EXIT.thresholds : EXIT.ok;
}
