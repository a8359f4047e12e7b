/**
 * The run directory: result.json (rewritten atomically after every step and at the end, so a
 * run killed at any moment leaves a readable file), timeseries.ndjson (appended every second),
 * summary.md, and the built-in server's log.
 */
import {
  appendFileSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
  existsSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { redactText } from '../redact/redact.js';
import { RESULT_SCHEMA, type RunResult } from '../result/result.js';
import type { TimeseriesPoint } from '../result/timeseries-point.js';
import { isDiskFull, overwriteInPlace, RunDirWriteError, writeFailureOf } from './write-failure.js';
import { lockOutDir, OutDirLocked } from './out-lock.js';
import { markOutDir } from './out-dir.js';

export function makeRunId(name: string, at: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  const stamp = `${at.getFullYear()}${p(at.getMonth() + 1)}${p(at.getDate())}-${p(at.getHours())}${p(at.getMinutes())}${p(at.getSeconds())}`;
  const safe = name.replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 60) || 'run';
  return `${stamp}-${safe}`;
}

/** result.json of a run directory (or the file itself), or why not. */
export function readResultFile<T extends RunResult = RunResult>(pathOrDir: string): T | string {
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

export class RunWriter {
  readonly dir: string;
  /** Gives the directory's lock back (a writer of a run: `forRun`); a no-op otherwise. */
  release: () => void = () => undefined;
  /**
   * Told once, with one line, when a write into the directory fails (disk full, read-only): the
   * runner aborts the run there.
   */
  onFailure: (line: string) => void = () => undefined;
  /** The first write failure; later timeline lines are not attempted. */
  private failure: RunDirWriteError | null = null;
  /** timeseries.ndjson's length after its last whole line (a cut line is truncated back). */
  private timeseriesBytes: number | null = null;

  constructor(dir: string) {
    this.dir = resolve(dir);
    try {
      mkdirSync(this.dir, { recursive: true });
    } catch (e) {
      throw unwritableDir(this.dir, e);
    }
  }

  /**
   * The writer of a new run, holding its directory's lock (out-lock) until `release`: `outDir`
   * held by a live run throws OutDirLocked; the default `reportsDir/runId` moves on to the next
   * free name, so two runs of one profile started in the same second get a directory each.
   */
  static forRun(outDir: string | undefined, reportsDir: string, runId: string): RunWriter {
    if (outDir) {
      try {
        return new RunWriter(outDir).locked();
      } catch (e) {
        if (e instanceof UnwritableDir) e.message = `--out ${e.message}`;
        throw e;
      }
    }
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

  /** Holds the directory's lock and marks it as a run's (what `--force` may replace). */
  private locked(): this {
    try {
      this.release = lockOutDir(this.dir);
      markOutDir(this.dir);
    } catch (e) {
      if (e instanceof OutDirLocked) throw e;
      throw unwritableDir(this.dir, e);
    }
    return this;
  }

  path(name: string): string {
    return join(this.dir, name);
  }

  /**
   * result.json, atomically. With no room for the temporary copy it is overwritten in place,
   * compact, then without the analysis (`rtcap report` rebuilds it), then as the run's status
   * alone: never left cut, never left "running" by a full disk. Does not throw on a failed write
   * (the failure is reported through `onFailure`).
   */
  writeResult(result: RunResult): void {
    try {
      this.writeAtomic('result.json', JSON.stringify(result, null, 2) + '\n');
    } catch {
      const { analysis: _analysis, ...bare } = result as RunResult & { analysis?: unknown };
      const minimal = {
        schema: result.schema,
        run_id: result.run_id,
        status: result.status,
        abort_reason: result.abort_reason,
        started_at: result.started_at,
        finished_at: result.finished_at,
        steps: [],
      };
      const bodies = [result, bare, minimal].map((r) => redactText(JSON.stringify(r)) + '\n');
      overwriteInPlace(this.path('result.json'), bodies);
    }
  }

  /** Throws RunDirWriteError (after telling `onFailure`) when the file cannot be written. */
  writeText(name: string, text: string): void {
    this.writeAtomic(name, text);
  }

  /** One whole line or nothing: a line cut by a full disk is truncated away. */
  appendTimeseries(point: TimeseriesPoint): void {
    if (this.failure) return;
    const path = this.path('timeseries.ndjson');
    const line = redactText(JSON.stringify(point)) + '\n';
    this.timeseriesBytes ??= existsSync(path) ? statSync(path).size : 0;
    try {
      appendFileSync(path, line);
      this.timeseriesBytes += Buffer.byteLength(line);
    } catch (e) {
      try {
        truncateSync(path, this.timeseriesBytes);
      } catch {
        /* nothing was written */
      }
      this.failed(writeFailureOf(e, this.dir, 'timeseries.ndjson'));
    }
  }

  /** Reports a write failure met by another writer of this directory (the report renderer). */
  noteFailure(e: unknown): void {
    if (e instanceof RunDirWriteError) this.failed(e);
  }

  private failed(e: RunDirWriteError): RunDirWriteError {
    if (!this.failure) {
      this.failure = e;
      this.onFailure(e.line);
    }
    return e;
  }

  private writeAtomic(name: string, text: string): void {
    const tmp = this.path(`.${name}.tmp`);
    try {
      // Every file of the run directory is written here: the last place a secret can be stopped.
      writeFileSync(tmp, redactText(text));
      renameSync(tmp, this.path(name));
    } catch (e) {
      // A temporary copy left behind would hold the space a full disk needs for the rest.
      rmSync(tmp, { force: true });
      throw this.failed(writeFailureOf(e, this.dir, name));
    }
  }
}

/** A run directory that cannot be made or locked: a usage error naming it (exit 2). */
export class UnwritableDir extends Error {
  override name = 'UnwritableDir';
  readonly exitCode = 2;
}

function unwritableDir(dir: string, e: unknown): UnwritableDir {
  const code = (e as NodeJS.ErrnoException)?.code ?? '';
  const why =
    code === 'EROFS'
      ? 'read-only file system'
      : code === 'EACCES' || code === 'EPERM'
        ? 'permission denied'
        : isDiskFull(code)
          ? 'no space left on the device'
          : (e as Error)?.message;
  return new UnwritableDir(`${dir}: cannot write a run there (${why})`);
}
