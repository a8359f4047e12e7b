/**
 * `rtcap capacity DIR...`: the whole capacity table (docs/METHOD.md §7 and §8) from runs and sweeps
 * made separately, refused when they are not like for like (docs/CAPACITY.md). Writes
 * capacity.json, capacity.md and report.html into --out (default: the one directory given,
 * when it is a campaign directory; else reports/capacity-<time>/). `--fail-on` thresholds on
 * the table's rows (`capacity.public_connections >= 5000`) make it a CI step: exit 99 when a
 * row is below what the team plans on, or has no value.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Argv } from 'yargs';
import { checkLikeForLike } from '../capacity/like-for-like.js';
import { buildCapacityFile, type TableOptions } from '../capacity/table.js';
import { renderCapacityTerminal } from '../report/capacity.js';
import { loadSources, relativeTo, writeCapacityFiles } from '../campaign/capacity-output.js';
import { makeRunId } from '../run/output.js';
import { EXIT } from '../util/exit-codes.js';
import { checked, checkedPositional, dir, num, outDir } from './flags.js';
import {
  evaluateOnRun,
  parseThreshold,
  ThresholdError,
  type Threshold,
} from '../model/thresholds.js';
import { log } from './shared.js';

export function tableOptionOptions<T>(c: Argv<T>) {
  return c
    .option(
      'cpu-safe-pct',
      checked('cpu-safe-pct', num(0, 100), {
        describe: "CPU safe line (default: the runs' analysis.cpu_safe_pct, 70)",
      }),
    )
    .option(
      'mem-safe-pct',
      checked('mem-safe-pct', num(0, 100), { describe: 'memory safe line (default 85)' }),
    )
    .option(
      'presence-quota',
      checked('presence-quota', num(0, 1e9), {
        describe:
          "presence quota of the docs/METHOD.md §5 arithmetic (default: the presence run's tenant quota, else 1,000/s)",
      }),
    )
    .option(
      'topic-updates',
      checked('topic-updates', num(0, 1e9), {
        describe:
          'updates/s one presence topic must be allowed (default 5: 200 members at 1,000/s)',
      }),
    );
}

export function tableOptionsFrom(a: {
  'cpu-safe-pct'?: number;
  'mem-safe-pct'?: number;
  'presence-quota'?: number;
  'topic-updates'?: number;
}): TableOptions {
  const safe: TableOptions['safe_lines'] = {};
  if (a['cpu-safe-pct'] !== undefined) safe.cpu_pct = a['cpu-safe-pct'];
  if (a['mem-safe-pct'] !== undefined) safe.mem_pct = a['mem-safe-pct'];
  return {
    safe_lines: safe,
    ...(a['presence-quota'] !== undefined ? { presence_quota_per_s: a['presence-quota'] } : {}),
    ...(a['topic-updates'] !== undefined ? { topic_updates_per_s: a['topic-updates'] } : {}),
  };
}

export function capacityCommand(y: Argv): Argv {
  return y.command(
    'capacity <dirs..>',
    'the whole capacity table (docs/METHOD.md §7 + §8) from run, sweep or campaign directories measured like for like',
    (c) =>
      tableOptionOptions(c)
        .positional(
          'dirs',
          checkedPositional('directory', dir, {
            array: true,
            demandOption: true,
            describe: 'run, sweep or campaign directories',
          }),
        )
        .option(
          'out',
          checked('out', outDir, {
            describe: 'directory for capacity.json, capacity.md, report.html',
          }),
        )
        .option('fail-on', {
          type: 'string',
          array: true,
          default: [] as string[],
          describe:
            'exit 99 unless a row holds: "capacity.public_connections >= 5000", "capacity.join_rate > 50"; a row without a value fails; repeatable',
        }),
    (args) => {
      const failOn = capacityThresholdsOrExit(args['fail-on'] as string[]);
      if (!failOn) return;
      const dirs = args.dirs as string[];
      const { sources, problems } = loadSources(dirs);
      const unlike = checkLikeForLike(sources);
      if (problems.length || unlike.length || sources.length === 0) {
        for (const p of [...problems, ...unlike.map((u) => `not like for like: ${u}`)])
          process.stderr.write(`rtcap capacity: ${p}\n`);
        if (sources.length === 0 && problems.length === 0)
          process.stderr.write('rtcap capacity: no runs\n');
        process.exitCode = EXIT.usage;
        return;
      }
      const campaignDir =
        dirs.length === 1 && existsSync(join(dirs[0], 'campaign.json')) ? dirs[0] : undefined;
      const out =
        (args.out as string | undefined) ??
        campaignDir ??
        join('reports', makeRunId('capacity', new Date()));
      const file = buildCapacityFile(relativeTo(out, sources), tableOptionsFrom(args));
      writeCapacityFiles(out, file, `Capacity — ${sources.length} runs`);
      process.stderr.write(renderCapacityTerminal(file) + '\n');
      log(`wrote ${out}/ (capacity.json, capacity.md, report.html)`);
      process.exitCode = failOn.length ? judgeCapacity(failOn, file.values) : EXIT.ok;
    },
  );
}

/** The --fail-on thresholds, each a capacity row's; null after printing why one is not (exit 2). */
function capacityThresholdsOrExit(exprs: string[]): Threshold[] | null {
  const out: Threshold[] = [];
  for (const e of exprs) {
    try {
      const th = parseThreshold(e);
      if (th.figure.kind !== 'capacity')
        throw new ThresholdError(
          e,
          'rtcap capacity judges capacity rows (capacity.<row id>); step figures are judged by run thresholds or rtcap compare',
        );
      out.push(th);
    } catch (err) {
      if (!(err instanceof ThresholdError)) throw err;
      process.stderr.write(`rtcap capacity: --fail-on: ${err.message}\n`);
      process.exitCode = EXIT.usage;
      return null;
    }
  }
  return out;
}

/** Prints each threshold's verdict on the table's values; the exit code: 99 when one failed. */
function judgeCapacity(
  thresholds: Threshold[],
  values: Readonly<Record<string, number | null>>,
): number {
  const results = thresholds.map((th) => evaluateOnRun(th, { steps: [], capacity: values }));
  const failed = results.filter((r) => !r.pass);
  process.stderr.write(
    `thresholds: ${failed.length ? 'FAIL' : 'PASS'} — ${results.length - failed.length} of ${results.length} passed\n`,
  );
  for (const r of results) process.stderr.write(`  ${r.pass ? 'pass' : 'FAIL'}  ${r.summary}\n`);
  return failed.length ? EXIT.thresholds : EXIT.ok;
}
