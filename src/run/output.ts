/**
 * The run directory: result.json (rewritten atomically after every step and at the end, so a
 * run killed at any moment leaves a readable file), timeseries.ndjson (appended every second),
 * summary.md, and the built-in server's log.
 */
import { appendFileSync, mkdirSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { RunResult, TimeseriesPoint } from '../report/result.js';

export function makeRunId(name: string, at: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  const stamp = `${at.getFullYear()}${p(at.getMonth() + 1)}${p(at.getDate())}-${p(at.getHours())}${p(at.getMinutes())}${p(at.getSeconds())}`;
  const safe = name.replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 60) || 'run';
  return `${stamp}-${safe}`;
}

export class RunWriter {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = resolve(dir);
    mkdirSync(this.dir, { recursive: true });
  }

  static forRun(outDir: string | undefined, reportsDir: string, runId: string): RunWriter {
    if (outDir) return new RunWriter(outDir);
    let dir = join(reportsDir, runId);
    for (let i = 2; existsSync(dir); i++) dir = join(reportsDir, `${runId}-${i}`);
    return new RunWriter(dir);
  }

  path(name: string): string {
    return join(this.dir, name);
  }

  writeResult(result: RunResult): void {
    this.writeAtomic('result.json', JSON.stringify(result, null, 2) + '\n');
  }

  writeText(name: string, text: string): void {
    this.writeAtomic(name, text);
  }

  appendTimeseries(point: TimeseriesPoint): void {
    appendFileSync(this.path('timeseries.ndjson'), JSON.stringify(point) + '\n');
  }

  private writeAtomic(name: string, text: string): void {
    const tmp = this.path(`.${name}.tmp`);
    writeFileSync(tmp, text);
    renameSync(tmp, this.path(name));
  }
}
