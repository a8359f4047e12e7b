/**
 * `rtcap run PROFILE`: one benchmark run of a profile. Exit 99 when a profile threshold fails.
 */
import type { Argv } from 'yargs';
import { runBenchmark } from '../run/runner.js';
import { runArtifactHooks } from './render.js';
import { checkUrl, finishRun, interruptible, loadProfileOrExit, log } from './shared.js';

export function runCommand(y: Argv): Argv {
  return y.command(
    'run <profile>',
    'run a benchmark profile (without target.url: against the built-in server)',
    (c) =>
      c
        .positional('profile', { type: 'string', demandOption: true, describe: 'profile YAML file' })
        .option('url', { type: 'string', describe: 'WebSocket URL of the target (overrides target.url)' })
        .option('out', { type: 'string', describe: 'directory for this run\'s files (default reports/<run-id>/)' })
        .option('set', { type: 'string', array: true, default: [] as string[], describe: 'override a profile field: --set load.steps.0.connections=200' })
        .option('workers', { type: 'number', describe: 'generator processes (default: profile load.workers, auto)' })
        .option('server-cpus', { type: 'string', describe: 'pin the built-in server to these CPUs (taskset list, e.g. 1)' })
        .option('generator-cpus', { type: 'string', describe: 'pin the generator to these CPUs (e.g. 0)' })
        .option('progress', { type: 'boolean', default: true, describe: 'live progress line on stderr' }),
    async (args) => {
      const loaded = await loadProfileOrExit(args.profile as string, args.set as string[]);
      if (!loaded || !checkUrl(args.url)) return;
      const { signal, dispose } = interruptible();
      try {
        const outcome = await runBenchmark({
          profile: loaded.profile,
          profilePath: loaded.path,
          redactedProfile: loaded.redacted,
          url: args.url,
          outDir: args.out,
          workers: args.workers,
          serverCpus: args['server-cpus'] ?? null,
          generatorCpus: args['generator-cpus'] ?? null,
          log,
          progress: args.progress as boolean,
          signal,
          ...runArtifactHooks(),
        });
        process.exitCode = finishRun(outcome);
      } finally {
        dispose();
      }
    },
  );
}
