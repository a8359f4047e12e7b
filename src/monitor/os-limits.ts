/**
 * Operating-system limits of a process on this machine, read from /proc: its open-file limit
 * (the soft RLIMIT_NOFILE of /proc/PID/limits, what accept() and socket() fail at) and how many
 * files it has open (entries of /proc/PID/fd). A server that runs out of files resets the
 * connections it cannot accept, which looks like a refusal from outside; sampling both tells
 * the two apart. Linux only: elsewhere every reading is null.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** One process's open files against its limit. `limit` null: unknown or unlimited. */
export interface OpenFiles {
  pid: number;
  open: number;
  limit: number | null;
}

/** The soft "Max open files" of a /proc/PID/limits text; null when absent or unlimited. */
export function parseOpenFilesLimit(limitsText: string): number | null {
  const m = /^Max open files\s+(\d+|unlimited)\s/m.exec(limitsText);
  if (!m || m[1] === 'unlimited') return null;
  return Number(m[1]);
}

/** The soft open-file limit of a process, or null (gone, not Linux, unlimited). */
export function readOpenFilesLimit(pid: number): number | null {
  try {
    return parseOpenFilesLimit(readFileSync(`/proc/${pid}/limits`, 'utf8'));
  } catch {
    return null;
  }
}

/** Files a process has open (sockets included), or null when /proc cannot tell. */
export function countOpenFiles(pid: number): number | null {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return null;
  }
}

/** A process's open files and limit, or null when its fd table cannot be read. */
export function readOpenFiles(pid: number): OpenFiles | null {
  const open = countOpenFiles(pid);
  return open === null ? null : { pid, open, limit: readOpenFilesLimit(pid) };
}

/** Share of its limit a process has open; a process without a known limit counts as 0. */
function fill(o: OpenFiles): number {
  return o.limit ? o.open / o.limit : 0;
}

/**
 * The process nearest its open-file limit among `pids` (a server's processes): the one whose
 * limit would stop it first. Null when none could be read.
 */
export function fullestOpenFiles(pids: readonly number[], read = readOpenFiles): OpenFiles | null {
  let best: OpenFiles | null = null;
  for (const pid of pids) {
    const o = read(pid);
    if (o && (!best || fill(o) > fill(best) || (fill(o) === fill(best) && o.open > best.open)))
      best = o;
  }
  return best;
}
