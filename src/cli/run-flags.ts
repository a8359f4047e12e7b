/**
 * The options of the commands that run benchmarks (run, sweep, campaign), and the run-option parts
 * (run/run-options.ts: target, load, output, signals) built from what they parsed.
 */
import type { Argv } from 'yargs';
import type { RunObserver } from '../run/runner.js';
import type { LoadPart, OutputPart, SignalsPart, TargetPart } from '../run/run-options.js';
import { runArtifactHooks } from '../artefacts/render.js';
import { checked, usableCpus, int, outDir, port, wsUrl } from './flags.js';
import { dashboardOptions } from './dashboard-flag.js';
import { log } from './shared.js';

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
