/**
 * What rtcap keeps under the temp directory, and which of it belongs to a run that is gone.
 *
 * Kinds, by name prefix:
 * - `rtcap-run-*`: a run's private directory (built-in server config, database URL, the
 *   server's Postgres data); `rtcap-pg-*`: a Postgres data root outside a run's directory;
 *   each holds `owner.pid` (the pid and start time of the process that made it).
 * - `rtcap-pgtemplate-<key>`: the initdb template every start copies (a cache);
 *   `rtcap-pgbin-<key>`: PostgreSQL binaries staged where the postgres system user can run
 *   them, when rtcap runs as root from a private directory (a cache).
 * - `…-build-*`: a cache being built, with its builder's owner record; published by rename, so
 *   one whose builder is gone (a server stopped mid-build), or one without a record still there
 *   after BUILD_STALE_MS, was abandoned.
 *
 * A name is no proof: a directory with rtcap's name and no owner record of rtcap's is removed
 * only when it holds nothing but what rtcap writes there (src/builtin/temp-contents.ts); any
 * other is kept as `foreign`, whatever its age.
 *
 * `leftovers` is the one answer to "what is ours and dead": the clean-up at the start of a run
 * and `rtcap clean` both use it. `removeLeftover` stops a Postgres still running from a dead
 * run's data (only one whose command line names that directory) before removing it.
 */
import { readdirSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pidAlive } from '../util/pid-alive.js';
import { describeForeign, foreignNames } from './temp-contents.js';
import { sleep } from '../util/sleep.js';

export const RUN_PREFIX = 'rtcap-run-';
export const PG_ROOT_PREFIX = 'rtcap-pg-';
export const TEMPLATE_PREFIX = 'rtcap-pgtemplate-';
export const BIN_CACHE_PREFIX = 'rtcap-pgbin-';
const OWNER_FILE = 'owner.pid';

/** A cache build that has not been published by now was abandoned (a build takes seconds). */
export const BUILD_STALE_MS = 10 * 60_000;
/** A run or data directory with no owner record yet is given this long to write one. */
const UNOWNED_GRACE_MS = 60_000;
/** Bounds every scan: a temp directory can hold anything. */
const MAX_NAMES = 20_000;

export type TempKind = 'run' | 'pg' | 'template' | 'bin-cache' | 'build';

export interface TempEntry {
  name: string;
  path: string;
  kind: TempKind;
  /** A cache (template or binaries), kept between runs by design. */
  cache: boolean;
  /** Nobody is using it: a dead owner, an abandoned build, or a cache no process runs from. */
  dead: boolean;
  /** Why it is dead (or live), in words for `rtcap clean`. */
  why: string;
  /**
   * It has rtcap's name but no owner record and holds what rtcap does not write there (a
   * user's folder): never removed.
   */
  foreign: boolean;
}

/** The kind of an entry by its name; null when it is not rtcap's. */
export function kindOf(name: string): TempKind | null {
  if (name.startsWith(`${TEMPLATE_PREFIX}build-`) || name.startsWith(`${BIN_CACHE_PREFIX}build-`))
    return 'build';
  if (new RegExp(`^${TEMPLATE_PREFIX}[0-9a-f]{16}$`).test(name)) return 'template';
  if (new RegExp(`^${BIN_CACHE_PREFIX}[0-9a-f]{16}$`).test(name)) return 'bin-cache';
  if (name.startsWith(RUN_PREFIX)) return 'run';
  if (
    name.startsWith(PG_ROOT_PREFIX) &&
    !name.startsWith(TEMPLATE_PREFIX) &&
    !name.startsWith(BIN_CACHE_PREFIX)
  )
    return 'pg';
  return null;
}

/** Whether a name is one of rtcap's caches (kept between runs by design, not a leftover). */
export function isCache(name: string): boolean {
  const kind = kindOf(name);
  return kind === 'template' || kind === 'bin-cache';
}

/** The process's start time in clock ticks since boot (/proc); null where there is no /proc. */
function startTicks(pid: number): string | null {
  try {
    // Field 22 of /proc/PID/stat, counted after the command name, which may hold spaces.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/**
 * Records this process as the owner of `dir` (its pid and start time, so a reused pid is not taken
 * for it).
 */
export function writeOwner(dir: string): void {
  writeFileSync(path.join(dir, OWNER_FILE), `${process.pid}\n${startTicks(process.pid) ?? ''}\n`);
}

/** Whether the process recorded in `dir` still runs; null when there is no readable record. */
export function ownerAlive(dir: string): boolean | null {
  let lines: string[];
  try {
    lines = readFileSync(path.join(dir, OWNER_FILE), 'utf8').split('\n');
  } catch {
    return null;
  }
  const pid = Number(lines[0].trim());
  if (!Number.isInteger(pid) || pid <= 0) return null;
  if (!pidAlive(pid)) return false;
  const recorded = (lines[1] ?? '').trim();
  const now = startTicks(pid);
  // Same pid, another process: the owner is gone.
  return !(recorded && now !== null && recorded !== now);
}

function ageMs(p: string): number {
  try {
    return Date.now() - statSync(p).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * Pids of processes whose executable lies under `dir` (a Postgres started from staged binaries).
 */
function processesRunningFrom(dir: string): number[] {
  const pids: number[] = [];
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return pids;
  }
  for (const name of names.slice(0, MAX_NAMES)) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readlinkSync(`/proc/${name}/exe`).startsWith(dir + path.sep)) pids.push(Number(name));
    } catch {
      /* gone, or not ours to read */
    }
  }
  return pids;
}

function judgeByOwner(name: string, full: string, kind: TempKind): TempEntry {
  const cache = kind === 'template' || kind === 'bin-cache';
  const base = { name, path: full, kind, cache, foreign: false };
  if (kind === 'run' || kind === 'pg') {
    const alive = ownerAlive(full);
    if (alive === null) {
      const old = ageMs(full) > UNOWNED_GRACE_MS;
      return { ...base, dead: old, why: old ? 'no owner record' : 'being created' };
    }
    return { ...base, dead: !alive, why: alive ? 'its process runs' : 'its process is gone' };
  }
  if (kind === 'build') {
    const alive = ownerAlive(full);
    if (alive !== null)
      return { ...base, dead: !alive, why: alive ? 'being built' : 'an abandoned build' };
    const old = ageMs(full) > BUILD_STALE_MS;
    return { ...base, dead: old, why: old ? 'an abandoned build' : 'being built' };
  }
  if (kind === 'bin-cache') {
    const users = processesRunningFrom(full);
    return {
      ...base,
      dead: users.length === 0,
      why: users.length ? `in use (pid ${users.join(', ')})` : 'cache, unused',
    };
  }
  return { ...base, dead: true, why: 'cache' };
}

/**
 * An entry judged by its owner record (or, for a cache, by who runs from it); one that would be
 * removed without a record of rtcap's in it is removed only when it holds nothing but what rtcap
 * writes there (src/builtin/temp-contents.ts): a name alone is no proof it is rtcap's.
 */
function judge(name: string, full: string, kind: TempKind): TempEntry {
  const e = judgeByOwner(name, full, kind);
  if (!e.dead || ownerAlive(full) !== null) return e;
  const foreign = foreignNames(kind, full);
  if (foreign.length === 0) return e;
  const why = `not an rtcap data directory (holds ${describeForeign(foreign)})`;
  return { ...e, dead: false, foreign: true, why };
}

/** Every entry of rtcap's under `dir` (default: the temp directory), judged. */
export function tempEntries(dir: string = os.tmpdir()): TempEntry[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: TempEntry[] = [];
  for (const name of names.slice(0, MAX_NAMES)) {
    const kind = kindOf(name);
    if (kind) out.push(judge(name, path.join(dir, name), kind));
  }
  return out;
}

/** What is ours and dead under `dir`: leftovers of runs that are gone (caches not included). */
export function leftovers(dir: string = os.tmpdir()): TempEntry[] {
  return tempEntries(dir).filter((e) => e.dead && !e.cache);
}

/**
 * The data directories under a leftover: itself (a Postgres root) or the roots in a run's
 * directory.
 */
function dataRoots(entry: TempEntry): string[] {
  // A template build holds a cluster too (started once for the migration).
  if (entry.kind === 'pg' || entry.kind === 'build') return [entry.path];
  if (entry.kind !== 'run') return [];
  try {
    return readdirSync(entry.path)
      .filter((n) => n.startsWith(PG_ROOT_PREFIX))
      .map((n) => path.join(entry.path, n));
  } catch {
    return [];
  }
}

/**
 * Stops a postmaster left running from `root`'s data (immediate shutdown: nothing in it is worth
 * keeping).
 */
async function stopPostmaster(root: string): Promise<void> {
  let pid: number;
  try {
    pid = Number(readFileSync(path.join(root, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return; // no postmaster.pid: the cluster is not running
  }
  if (!Number.isInteger(pid) || pid <= 0 || !pidAlive(pid)) return;
  let cmdline: string;
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return;
  }
  if (!cmdline.includes(root)) return; // the pid was reused by something else
  try {
    process.kill(pid, 'SIGQUIT');
  } catch {
    return;
  }
  for (let i = 0; i < 50 && pidAlive(pid); i++) await sleep(20);
}

/** Removes a leftover, stopping any Postgres still running from its data first. */
export async function removeLeftover(entry: TempEntry): Promise<void> {
  for (const root of dataRoots(entry)) await stopPostmaster(root);
  rmSync(entry.path, { recursive: true, force: true });
}

/**
 * Removes the cache builds under `dir` whose builder is gone: a server stopped (or killed) while
 * it staged the binaries or built the template leaves one beside the run's directory. Only
 * synchronous work, for a clean-up that runs once the server's whole process group is gone (so
 * no Postgres runs from a build). Returns the paths removed.
 */
export function removeAbandonedBuilds(dir: string = os.tmpdir()): string[] {
  const removed: string[] = [];
  for (const e of tempEntries(dir)) {
    if (e.kind !== 'build' || !e.dead) continue;
    rmSync(e.path, { recursive: true, force: true });
    removed.push(e.path);
  }
  return removed;
}

/**
 * What `rtcap clean` did: each entry removed, and each kept (something still uses it, or it is
 * not rtcap's: `foreign`).
 */
export interface CleanOutcome {
  removed: TempEntry[];
  kept: TempEntry[];
}

/**
 * Removes rtcap's caches and every leftover of a dead run under `dir`; what is in use, and what
 * is not provably rtcap's, stays. `dryRun`: removes nothing, and `removed` is what would go.
 */
export async function cleanTemp(
  dir: string = os.tmpdir(),
  opts: { dryRun?: boolean } = {},
): Promise<CleanOutcome> {
  const out: CleanOutcome = { removed: [], kept: [] };
  for (const e of tempEntries(dir)) {
    if (!e.dead) {
      out.kept.push(e);
      continue;
    }
    if (!opts.dryRun) await removeLeftover(e);
    out.removed.push(e);
  }
  return out;
}
