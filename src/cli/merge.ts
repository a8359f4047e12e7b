/**
 * `rtcap merge SHARD_OR_DIR... --out DIR`: the segments of one run (each a shard.json) merged
 * into result.json, summary.md, report.html and timeseries.ndjson exactly as a single-machine
 * run writes them, with thresholds, verdicts, fits and capacity evaluated on the merged result.
 */
import type { ArgumentsCamelCase, Argv } from 'yargs';
import type { Profile } from '../profile/schema.js';
import { EXIT } from '../util/exit-codes.js';
import { checked, checkedPositional, exists, outDir } from './flags.js';
import { RunWriter } from '../run/output.js';
import { markOutDir, prepareOutDir } from '../run/out-dir.js';
import { SHARD_FILE, ShardError, type Shard } from '../shard/format.js';
import { mergeShards } from '../shard/merge.js';
import { readShard, shardPaths } from '../shard/read.js';
import { mergedStatus, rebuildResult } from '../shard/rebuild.js';
import { initialResult, resultSaver } from '../run/run-result.js';
import { runArtifactHooks } from '../artefacts/render.js';
import { finishRun } from './finish-run.js';
import { log } from './shared.js';

/** The flags of `rtcap merge`: the shards (files or directories) and the output directory. */
function mergeOptions(c: Argv) {
  return c
    .positional(
      'shards',
      checkedPositional('shard', exists, {
        array: true,
        demandOption: true,
        describe: 'shard.json files, or directories holding them (searched two levels deep)',
      }),
    )
    .option(
      'out',
      checked('out', outDir, {
        demandOption: true,
        describe:
          'directory for the merged run (result.json, summary.md, report.html, timeseries.ndjson)',
      }),
    )
    .option('force', {
      type: 'boolean',
      default: false,
      describe: 'replace the earlier rtcap run in --out (refused for any other directory)',
    });
}

type MergeArgs = ArgumentsCamelCase<
  ReturnType<typeof mergeOptions> extends Argv<infer T> ? T : never
>;

/** Every shard the arguments name, read; a ShardError names an argument that holds none. */
function readGivenShards(given: string[]): { paths: string[]; shards: Shard[] } {
  // Where nothing was found is named: a directory of the wrong run, or not yet copied back.
  for (const a of given)
    if (shardPaths([a]).length === 0)
      throw new ShardError(`no ${SHARD_FILE} in ${a} (searched two levels deep)`);
  const paths = shardPaths(given);
  return { paths, shards: paths.map(readShard) };
}

/** The merged run's result and timeseries, as the first segment's run started it. */
function mergedResult(shards: Shard[], merged: ReturnType<typeof mergeShards>) {
  const first = shards[0].run;
  const startedAt = shards.map((s) => s.host.startedAt).sort()[0];
  const finished = shards.map((s) => s.run.finishedAt);
  const profile = first.profile as Profile;
  const initial = initialResult({
    runId: merged.identity.run,
    startedAt: new Date(startedAt),
    profile,
    profilePath: first.profilePath,
    redactedProfile: first.profile,
    builtin: first.builtin,
    serverCpus: null,
    generatorCpus: null,
  });
  const rebuilt = rebuildResult(merged, {
    initial,
    profile,
    builtin: first.builtin,
    targetUrl: first.targetUrl,
    finishedAt: finished.includes(null) ? null : (finished as string[]).sort().at(-1)!,
  });
  // The segments' emulated client link (each ran the same profile, so the same link).
  if (first.link) rebuilt.result.generator.link = first.link;
  return rebuilt;
}

/** The merged run's status, and every segment's abort reason named by its segment. */
function mergedState(shards: Shard[]) {
  const abortReasons = shards
    .map((s) => (s.run.abortReason ? `segment ${s.identity.segment}: ${s.run.abortReason}` : null))
    .filter((x) => x);
  return {
    status: mergedStatus(shards.map((s) => s.run.status)),
    abortReason: abortReasons.length ? abortReasons.join('; ') : null,
  };
}

/** Merges the shards into --out and sets the exit code as `rtcap run` would have. */
function mergeRun(args: MergeArgs): void {
  const { paths, shards } = readGivenShards(args.shards as string[]);
  const merged = mergeShards(shards, paths);
  const problem = prepareOutDir(args.out as string, args.force);
  if (problem) throw new ShardError(problem);
  const { result, timeseries } = mergedResult(shards, merged);
  const writer = new RunWriter(args.out as string);
  markOutDir(writer.dir);
  for (const p of timeseries) writer.appendTimeseries(p);
  const state = mergedState(shards);
  resultSaver({ result, state, writer, log, ...runArtifactHooks() })();
  log(
    `merged ${shards.length} shard${shards.length === 1 ? '' : 's'} of run "${merged.identity.run}" (${merged.identity.segments} segments, ${merged.workers} generator processes on ${[...new Set(merged.hosts)].join(', ')})`,
  );
  const code =
    state.status === 'completed'
      ? EXIT.ok
      : state.status === 'interrupted'
        ? EXIT.interrupted
        : EXIT.aborted;
  process.exitCode = finishRun({ result, dir: writer.dir, exitCode: code });
}

export function mergeCommand(y: Argv): Argv {
  return y.command(
    'merge <shards..>',
    'merge the shards of a run split over several generators (run --segment i/N) into one result',
    mergeOptions,
    (args) => {
      try {
        mergeRun(args);
      } catch (e) {
        if (!(e instanceof ShardError)) throw e;
        process.stderr.write(`rtcap merge: ${e.message}\n`);
        process.exitCode = EXIT.usage;
      }
    },
  );
}
