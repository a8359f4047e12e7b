/**
 * Whether a command may write a run into `--out`, and what `--force` may delete there. A run
 * writes into an empty directory (an old run's timeseries.ndjson beside a new result.json would
 * be a directory that disagrees with itself); `--force` replaces an earlier run, and only that:
 * a directory rtcap wrote as a run (its marker file, or a result.json of rtcap's schema for runs
 * written before the marker existed) holding nothing but a run's files. Never a symbolic link's
 * target, the home directory, the file system's root, the working directory or one above it, the
 * profile's own folder or a git checkout, whatever they hold.
 */
import {
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { RESULT_SCHEMA } from '../result/result.js';
import { describeHolder, liveHolder, LOCK_FILE } from './out-lock.js';

/** Written into every directory rtcap makes for a run: what `--force` may replace. */
export const OUT_MARKER = '.rtcap-output';

/** The files a run, sweep, merge or quotas check writes into its directory. */
const RUN_FILES = new Set([
  OUT_MARKER,
  LOCK_FILE,
  'result.json',
  'timeseries.ndjson',
  'summary.md',
  'report.html',
  'server.log',
  'shard.json',
  'quotas.json',
  'quotas.md',
]);

/** A run's file, or the temporary copy of one (`.result.json.tmp`, `timeseries.ndjson.tmp`). */
function isRunFile(name: string): boolean {
  if (RUN_FILES.has(name)) return true;
  const m = /^\.?(.+)\.tmp$/.exec(name);
  return m !== null && RUN_FILES.has(m[1]);
}

/** Marks `dir` as a directory rtcap wrote as a run. */
export function markOutDir(dir: string): void {
  writeFileSync(
    join(dir, OUT_MARKER),
    'written by rtcap: this directory holds one run; rtcap run --force may replace it\n',
  );
}

/** Where a run's `--force` must never delete, whatever the directory holds. */
export interface ProtectedPlaces {
  /** The profile file the command reads (its folder is never emptied). */
  profilePath?: string;
  home?: string;
  cwd?: string;
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** `inner` is `outer` or lies below it. */
function within(inner: string, outer: string): boolean {
  const rel = relative(outer, inner);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** Why `dir` (a directory that holds files) is one `--force` never empties, or null. */
export function protectedPlace(dir: string, places: ProtectedPlaces = {}): string | null {
  const at = real(dir);
  if (at === dirname(at)) return 'is the root of the file system';
  const home = real(places.home ?? homedir());
  if (at === home) return 'is your home directory';
  if (within(home, at)) return 'holds your home directory';
  if (within(real(places.cwd ?? process.cwd()), at))
    return 'is the working directory or one above it';
  if (places.profilePath !== undefined && within(real(dirname(places.profilePath)), at))
    return `holds the profile ${places.profilePath}`;
  if (existsSync(join(at, '.git'))) return 'is a git checkout (it holds .git)';
  return null;
}

/** The directory carries rtcap's marker, or a result.json of rtcap's schema (an older run). */
export function isRunDir(dir: string): boolean {
  if (existsSync(join(dir, OUT_MARKER))) return true;
  try {
    const r = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as { schema?: unknown };
    return r?.schema === RESULT_SCHEMA;
  } catch {
    return false;
  }
}

const listed = (names: string[]) =>
  names.slice(0, 3).join(', ') + (names.length > 3 ? `, … (${names.length} entries)` : '');

/**
 * Why `--force` may not empty `dir` (a directory holding `entries`), or null when it may: the
 * directory is itself (not a link), in no protected place, and holds one earlier run and
 * nothing else.
 */
export function forceProblem(
  dir: string,
  entries: string[],
  places: ProtectedPlaces,
): string | null {
  const refuse = (what: string) =>
    `--out ${dir}: ${what}; --force replaces only a directory rtcap wrote as a run: choose another directory`;
  if (lstatSync(dir).isSymbolicLink())
    return refuse(`is a symbolic link to ${readlinkSync(dir)} (its target is never emptied)`);
  const place = protectedPlace(dir, places);
  if (place) return refuse(place);
  if (!isRunDir(dir))
    return refuse(
      `holds ${listed(entries)} and no rtcap run (no ${OUT_MARKER}, no result.json of rtcap's)`,
    );
  const others = entries.filter((n) => !isRunFile(n));
  if (others.length) return refuse(`holds an rtcap run and also ${listed(others)}`);
  return null;
}

/**
 * Makes `dir` ready for a new run: absent or empty is fine; holding files is refused (the
 * reason, one line) unless `force` and `forceProblem` finds none, when the old run's files are
 * deleted. Returns null when ready.
 */
export function prepareOutDir(
  dir: string,
  force: boolean,
  places: ProtectedPlaces = {},
): string | null {
  if (!existsSync(dir)) return null;
  if (!statSync(dir).isDirectory()) return `--out ${dir}: exists and is not a directory`;
  // A directory a live run writes into is refused even with --force (it would be emptied under it).
  const holder = liveHolder(dir);
  if (holder)
    return `--out ${dir}: in use by another rtcap run (${describeHolder(holder)}); wait for it to end or choose another directory`;
  // A stale lock (its run was killed) and a bare marker are not files of a run.
  const entries = readdirSync(dir).filter((name) => name !== LOCK_FILE && name !== OUT_MARKER);
  if (entries.length === 0) return null;
  if (!force) {
    const run = isRunDir(dir);
    return `--out ${dir}: already holds ${run ? 'a run' : 'files'} (${listed(entries)}); choose another directory${run ? ', or add --force to replace that run' : ''}`;
  }
  const problem = forceProblem(dir, entries, places);
  if (problem) return problem;
  for (const name of entries) rmSync(join(dir, name), { recursive: true, force: true });
  return null;
}

/** A directory a command would have to delete and may not; `exitCode` is the usage code. */
export class OutDirRefused extends Error {
  override name = 'OutDirRefused';
  readonly exitCode = 2;
}

/**
 * Deletes the directory of an earlier run that is to be run again (a campaign's entry): absent
 * is fine; anything `--force` would not replace throws OutDirRefused.
 */
export function removeRunDir(dir: string): void {
  if (!existsSync(dir)) return;
  const problem = prepareOutDir(dir, true);
  if (problem) throw new OutDirRefused(problem);
  rmSync(dir, { recursive: true, force: true });
}
