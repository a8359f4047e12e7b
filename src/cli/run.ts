/**
 * `rtcap run PROFILE`: one benchmark run of a profile.
 */
import type { Argv } from 'yargs';
import { loadProfile, ProfileError } from '../profile/load.js';
import { runBenchmark, EXIT } from '../run/runner.js';
import { renderOutputs } from './render.js';

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
      const log = (line: string) => process.stderr.write(`${line}\n`);
      let loaded;
      try {
        loaded = await loadProfile(args.profile as string, { sets: args.set as string[] });
      } catch (e) {
        if (e instanceof ProfileError) {
          process.stderr.write(`${e.message}\n`);
          process.exitCode = EXIT.usage;
          return;
        }
        throw e;
      }
      if (args.url !== undefined && !/^wss?:\/\//.test(args.url)) {
        process.stderr.write(`--url ${args.url}: must start with ws:// or wss://\n`);
        process.exitCode = EXIT.usage;
        return;
      }
      const ac = new AbortController();
      let interrupts = 0;
      const onSignal = () => {
        interrupts++;
        if (interrupts === 1) {
          process.stderr.write('\nrtcap: stopping — writing what was measured (Ctrl-C again to quit at once)\n');
          ac.abort();
        } else {
          process.exit(EXIT.interrupted);
        }
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
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
          signal: ac.signal,
          renderSummary: (r) => renderOutputs(r).markdown,
        });
        process.stderr.write('\n' + renderOutputs(outcome.result).terminal + '\n');
        log(`wrote ${outcome.dir}/ (result.json, summary.md, timeseries.ndjson)`);
        process.exitCode = outcome.exitCode;
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    },
  );
}
