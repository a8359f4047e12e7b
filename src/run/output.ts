/**
 * The run directory: result.json (rewritten atomically after every step and at the end, so a
 * run killed at any moment leaves a readable file), timeseries.ndjson (appended every second),
 * summary.md, and the built-in server's log.
 */
import {
  appendFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  existsSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { redactText } from '../redact/redact.js';
import { RESULT_SCHEMA, type RunResult, type TimeseriesPoint } from '../result/result.js';
import type { SweepResult } from './sweep-record.js';
import { describeHolder, liveHolder, LOCK_FILE, lockOutDir, OutDirLocked } from './out-lock.js';

export function makeRunId(name: string, at: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  const stamp = `${at.getFullYear()}${p(at.getMonth() + 1)}${p(at.getDate())}-${p(at.getHours())}${p(at.getMinutes())}${p(at.getSeconds())}`;
  const safe = name.replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 60) || 'run';
  return `${stamp}-${safe}`;
}

/** result.json of a run directory (or the file itself), or why not. */
export function readResultFile<T extends RunResult = SweepResult>(pathOrDir: string): T | string {
  const path = pathOrDir.endsWith('.json') ? pathOrDir : join(pathOrDir, 'result.json');
  if (!existsSync(path)) return `${path}: no such file`;
  let r: T;
  try {
    r = JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch (e) {
    return `${path}: not readable JSON (${(e as Error).message})`;
  }
  if (r?.schema !== RESULT_SCHEMA || !Array.isArray(r.steps))
    return `${path}: not an rtcap result (schema ${JSON.stringify(r?.schema)}, expected ${RESULT_SCHEMA})`;
  return r;
}

/**
 * Makes `dir` ready for a new run: absent or empty is fine; holding files is refused (the
 * reason, one line) unless `force`, which empties it. Returns null when ready.
 */
export function prepareOutDir(dir: string, force: boolean): string | null {
  if (!existsSync(dir)) return null;
  if (!statSync(dir).isDirectory()) return `--out ${dir}: exists and is not a directory`;
  // A directory a live run writes into is refused even with --force (it would be emptied under it).
  const holder = liveHolder(dir);
  if (holder)
    return `--out ${dir}: in use by another rtcap run (${describeHolder(holder)}); wait for it to end or choose another directory`;
  // A stale lock (its run was killed) is not a file of a run.
  const entries = readdirSync(dir).filter((name) => name !== LOCK_FILE);
  if (entries.length === 0) return null;
  if (!force) {
    const shown = entries.slice(0, 3).join(', ') + (entries.length > 3 ? ', …' : '');
    return `--out ${dir}: already holds ${entries.includes('result.json') ? 'a run' : 'files'} (${shown}); choose another directory, or add --force to replace it`;
  }
  for (const name of entries) rmSync(join(dir, name), { recursive: true, force: true });
  return null;
}

export class RunWriter {
  readonly dir: string;
  /** Gives the directory's lock back (a writer of a run: `forRun`); a no-op otherwise. */
  release: () => void = () => undefined;

  constructor(dir: string) {
    this.dir = resolve(dir);
    mkdirSync(this.dir, { recursive: true });
  }

  /**
   * The writer of a new run, holding its directory's lock (out-lock) until `release`: `outDir`
   * held by a live run throws OutDirLocked; the default `reportsDir/runId` moves on to the next
   * free name, so two runs of one profile started in the same second get a directory each.
   */
  static forRun(outDir: string | undefined, reportsDir: string, runId: string): RunWriter {
    if (outDir) return new RunWriter(outDir).locked();
    for (let i = 1; ; i++) {
      const dir = join(reportsDir, i === 1 ? runId : `${runId}-${i}`);
      if (existsSync(dir)) continue;
      try {
        return new RunWriter(dir).locked();
      } catch (e) {
        if (!(e instanceof OutDirLocked)) throw e;
      }
    }
  }

  private locked(): this {
    this.release = lockOutDir(this.dir);
    return this;
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
    appendFileSync(this.path('timeseries.ndjson'), redactText(JSON.stringify(point)) + '\n');
  }

  private writeAtomic(name: string, text: string): void {
    const tmp = this.path(`.${name}.tmp`);
    // Every file of the run directory is written here: the last place a secret can be stopped.
    writeFileSync(tmp, redactText(text));
    renameSync(tmp, this.path(name));
  }
}
