/**
 * `rtcap run PROFILE`: one benchmark run of a profile. Exit 99 when a profile threshold fails.
 */
import type { Argv } from 'yargs';
import { runBenchmark } from '../run/runner.js';
import { runArtifactHooks } from './render.js';
import { benchmarkOptions, checkOutDir, checkUrl, finishRun, interruptible, liveMetricsOrExit, loadProfileOrExit, log } from './shared.js';

export function runCommand(y: Argv): Argv {
  return y.command(
    'run <profile>',
    'run a benchmark profile (without target.url: against the built-in server)',
    (c) => benchmarkOptions(c, 'load.steps.0.connections=200'),
    async (args) => {
      const loaded = await loadProfileOrExit(args.profile as string, args.set as string[]);
      if (!loaded || !checkUrl(args.url) || !checkOutDir(args.out, args.force as boolean)) return;
      const live = await liveMetricsOrExit(args);
      if (!live) return;
      const { signal, dispose, exitCode } = interruptible();
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
          observer: live.observer,
          ...runArtifactHooks(),
        });
        process.exitCode = exitCode(finishRun(outcome));
      } finally {
        dispose();
        await live.close();
      }
    },
  );
}
