/**
 * `rtcap report DIR`: rebuilds every artefact of a run directory — the analysis and
 * thresholds in result.json, summary.md, report.html — from result.json (and
 * timeseries.ndjson when present), with the rtcap that runs it. Exit 99 when a threshold fails.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Argv } from 'yargs';
import { readResultFile as readResult } from '../run/output.js';
import { EXIT } from '../util/exit-codes.js';
import { checkedPositional, runDir } from './flags.js';

/** result.json of a run directory (or the file itself), or why not. */
export function readResultFile(pathOrDir: string): ResultFile | string {
  return readResult<ResultFile>(pathOrDir);
}
import { terminalSummary, writeArtifacts, type ResultFile } from '../artefacts/render.js';
import { chartWidth } from './finish-run.js';
import { log } from './shared.js';

export function reportCommand(y: Argv): Argv {
  return y.command(
    'report <dir>',
    "rebuild result.json's analysis, summary.md and report.html of a run directory",
    (c) =>
      c.positional(
        'dir',
        checkedPositional('run directory', runDir, {
          demandOption: true,
          describe: 'run directory (with result.json), or its result.json',
        }),
      ),
    (args) => {
      const dir = args.dir as string;
      const r = readResultFile(dir);
      if (typeof r === 'string') {
        process.stderr.write(`rtcap report: ${r}\n`);
        process.exitCode = EXIT.usage;
        return;
      }
      const problems = writeArtifacts(r, dir);
      for (const p of problems) log(`warning: ${p}`);
      process.stdout.write(terminalSummary(r, chartWidth()));
      log(
        `rebuilt ${dir}/ (result.json analysis, summary.md, report.html)${existsSync(join(dir, 'timeseries.ndjson')) ? '' : ' — no timeseries.ndjson: the timeline chart is empty'}`,
      );
      process.exitCode = problems.length
        ? EXIT.failed
        : r.thresholds && !r.thresholds.pass
          ? EXIT.thresholds
          : EXIT.ok;
    },
  );
}
