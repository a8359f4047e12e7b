/**
 * The end of a run on the command line: the artefacts rewritten with the final result, the
 * terminal summary, thresholds, and the exit code.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { RunOutcome } from '../run/runner.js';
import { EXIT } from '../util/exit-codes.js';
import { terminalSummary, writeArtifacts, type ResultFile } from '../artefacts/render.js';
import { log } from './shared.js';

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
