/**
 * What a failed write into the run directory means, in one line, and the last resort that keeps
 * result.json readable when the disk is full: a run ends "aborted: disk full" with every file it
 * leaves parseable, never with an uncaught ENOSPC and a result still "running".
 */
import {
  closeSync,
  existsSync,
  ftruncateSync,
  openSync,
  statfsSync,
  statSync,
  writeSync,
} from 'node:fs';

/** The codes of a file system with no room left (no space, or the user's quota spent). */
const FULL_CODES = new Set(['ENOSPC', 'EDQUOT']);

/**
 * A write into the run directory failed: `line` says what and where (one line); `exitCode` is an
 * aborted run's, since what was measured so far is kept.
 */
export class RunDirWriteError extends Error {
  override name = 'RunDirWriteError';
  readonly exitCode = 3;

  constructor(
    readonly line: string,
    readonly code: string,
  ) {
    super(line);
  }
}

export function isDiskFull(code: string): boolean {
  return FULL_CODES.has(code);
}

/** The one line for a failed write of `name` in `dir`. */
export function writeFailureOf(e: unknown, dir: string, name: string): RunDirWriteError {
  if (e instanceof RunDirWriteError) return e;
  const code = (e as NodeJS.ErrnoException)?.code ?? '';
  if (isDiskFull(code))
    return new RunDirWriteError(
      `disk full: no space left in ${dir} (${code} writing ${name})`,
      code,
    );
  const what = code === 'EROFS' ? 'read-only file system' : ((e as Error)?.message ?? String(e));
  return new RunDirWriteError(`cannot write ${name} in ${dir}: ${what}`, code);
}

/** Bytes the file system holding `path` still has for this user; Infinity when unknown. */
function freeBytes(path: string): number {
  try {
    const s = statfsSync(path);
    return s.bavail * s.bsize;
  } catch {
    return Infinity;
  }
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/**
 * Writes one of `bodies` over the file at `path` in place (from offset 0, then cut to its
 * length), the first that fits in the file's own blocks plus the space left: with no room for a
 * temporary copy, overwriting what the file already holds is the only write left. Bodies go from
 * the most complete to the smallest; the last should always fit. Returns the index written, or
 * null when none could be.
 */
export function overwriteInPlace(path: string, bodies: string[]): number | null {
  const room = sizeOf(path) + freeBytes(path);
  for (let i = 0; i < bodies.length; i++) {
    const bytes = Buffer.from(bodies[i]);
    if (bytes.length > room && i < bodies.length - 1) continue;
    let fd: number | null = null;
    try {
      fd = openSync(path, existsSync(path) ? 'r+' : 'w');
      writeSync(fd, bytes, 0, bytes.length, 0);
      ftruncateSync(fd, bytes.length);
      return i;
    } catch {
      /* the next, smaller body */
    } finally {
      if (fd !== null) closeSync(fd);
    }
  }
  return null;
}
