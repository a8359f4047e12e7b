/**
 * One run per directory: a run holds `.rtcap.lock` in its directory (created exclusively, with
 * its pid) while it writes there, so a second run started at the same moment with the same
 * `--out` is refused instead of interleaving its timeseries and result.json with the first's.
 * A lock whose pid is gone (a run killed with SIGKILL) is stale and taken over.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { pidAlive } from '../util/pid-alive.js';

export const LOCK_FILE = '.rtcap.lock';

export interface LockHolder {
  pid: number;
  host: string;
  started_at: string;
}

/** Refused because another live process holds the directory; `exitCode` is the usage code. */
export class OutDirLocked extends Error {
  readonly exitCode = 2;

  constructor(
    readonly dir: string,
    readonly holder: LockHolder,
  ) {
    super(
      `${dir}: in use by another rtcap run (${describeHolder(holder)}); wait for it to end or choose another --out`,
    );
  }
}

export function describeHolder(h: LockHolder): string {
  return `pid ${h.pid}${h.host === hostname() ? '' : ` on ${h.host}`}, started ${h.started_at}`;
}

/**
 * The lock's holder, or null when there is no lock or only a stale one (its pid is gone, or
 * unreadable).
 */
export function liveHolder(dir: string): LockHolder | null {
  let holder: LockHolder;
  try {
    holder = JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')) as LockHolder;
  } catch {
    return null;
  }
  if (!Number.isInteger(holder?.pid)) return null;
  // A lock written on another host (a shared volume) cannot be checked: it is honoured.
  if (holder.host !== hostname()) return holder;
  return holder.pid === process.pid || pidAlive(holder.pid) ? holder : null;
}

/**
 * Takes the directory's lock (the directory exists). Throws OutDirLocked when a live process
 * holds it; a stale lock is replaced. Returns the release, which is idempotent and also runs
 * when the process exits.
 */
export function lockOutDir(dir: string): () => void {
  const path = join(dir, LOCK_FILE);
  const me: LockHolder = {
    pid: process.pid,
    host: hostname(),
    started_at: new Date().toISOString(),
  };
  // Two tries: the second after removing a stale lock; a racer that took it meanwhile wins.
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(path, JSON.stringify(me) + '\n', { flag: 'wx' });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const holder = liveHolder(dir);
      if (holder && holder.pid !== process.pid) throw new OutDirLocked(dir, holder);
      if (attempt > 0) throw new OutDirLocked(dir, holder ?? me);
      rmSync(path, { force: true });
    }
  }
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    heldLocks.delete(release);
    // Only our own lock: a directory emptied and reused meanwhile is not ours to unlock.
    try {
      const now = JSON.parse(readFileSync(path, 'utf8')) as LockHolder;
      if (now.pid === me.pid && now.started_at === me.started_at) rmSync(path, { force: true });
    } catch {
      /* already gone */
    }
  };
  if (!exitHooked) process.once('exit', releaseAll);
  exitHooked = true;
  heldLocks.add(release);
  return release;
}

/**
 * The releases of the locks this process holds: a run that exits without releasing still gives them
 * back.
 */
const heldLocks = new Set<() => void>();
let exitHooked = false;

function releaseAll(): void {
  for (const release of [...heldLocks]) release();
}
