/**
 * Whether a directory under the temp directory holds only what rtcap puts there, for a
 * directory that carries rtcap's name but no owner record: a name alone is no proof (a user's
 * `rtcap-pg-mybackup/important.sql`), so such a directory is removed only when every name in it
 * is one rtcap writes (src/builtin/pg-leftovers.ts says which kind holds what).
 *
 * What rtcap writes, by kind (src/server/db/embedded*.ts, src/run/target.ts):
 * - a Postgres root (`rtcap-pg-*`): `owner.pid`, `data/` (a PostgreSQL data directory), the
 *   server's socket and its lock (`.s.PGSQL.<port>`, `.s.PGSQL.<port>.lock`);
 * - a run's directory (`rtcap-run-*`): `owner.pid`, `server-config.json`, `database-url` and
 *   Postgres roots (`rtcap-pg-…`, each checked as above);
 * - a template (`rtcap-pgtemplate-*`): a Postgres root plus `password` and `ready`;
 * - staged binaries (`rtcap-pgbin-*`): `owner.pid`, `node_modules/`, `ready`;
 * - a cache build: either of the last two, unfinished.
 * A data directory's own names are PostgreSQL's (initdb's layout, PostgreSQL 12-17); its
 * subdirectories are PostgreSQL's to fill and are not read.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** The names initdb and a running postmaster create at the top of a data directory. */
const PG_DATA_NAMES = new Set([
  'PG_VERSION',
  'base',
  'global',
  'pg_commit_ts',
  'pg_dynshmem',
  'pg_hba.conf',
  'pg_ident.conf',
  'pg_logical',
  'pg_multixact',
  'pg_notify',
  'pg_replslot',
  'pg_serial',
  'pg_snapshots',
  'pg_stat',
  'pg_stat_tmp',
  'pg_subtrans',
  'pg_tblspc',
  'pg_twophase',
  'pg_wal',
  'pg_xact',
  'postgresql.auto.conf',
  'postgresql.conf',
  'postmaster.opts',
  'postmaster.pid',
  'current_logfiles',
  'log',
]);

const SOCKET = /^\.s\.PGSQL\.\d+(\.lock)?$/;
/** Bounds the listing of one directory: rtcap's hold a few dozen names. */
const MAX_NAMES = 1_000;

/** The kinds whose contents are checked (pg-leftovers' TempKind). */
export type ContentKind = 'run' | 'pg' | 'template' | 'bin-cache' | 'build';

function list(dir: string): string[] | null {
  try {
    return readdirSync(dir).slice(0, MAX_NAMES);
  } catch {
    return null;
  }
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** The names in a PostgreSQL data directory that PostgreSQL does not put there. */
function foreignInData(data: string): string[] {
  const names = list(data);
  if (names === null) return [path.basename(data)];
  return names.filter((n) => !PG_DATA_NAMES.has(n)).map((n) => `${path.basename(data)}/${n}`);
}

/** One name rtcap writes into a directory of `kind`; null when it is foreign. */
function ownName(kind: ContentKind, dir: string, name: string): string[] | null {
  const full = path.join(dir, name);
  if (name === 'owner.pid') return [];
  if (kind === 'run') {
    if (name === 'server-config.json' || name === 'database-url') return [];
    if (name.startsWith('rtcap-pg-') && isDir(full))
      return foreignNames('pg', full).map((n) => `${name}/${n}`);
    return null;
  }
  if (kind !== 'pg' && name === 'ready') return [];
  const pgLike = kind === 'pg' || kind === 'template' || kind === 'build';
  if (pgLike && SOCKET.test(name)) return [];
  if (pgLike && name === 'data' && isDir(full)) return foreignInData(full);
  if ((kind === 'template' || kind === 'build') && name === 'password') return [];
  if ((kind === 'bin-cache' || kind === 'build') && name === 'node_modules' && isDir(full))
    return [];
  return null;
}

/**
 * The names under `dir` that rtcap does not write into a directory of `kind` (paths relative
 * to `dir`); empty when it holds only rtcap's. A directory that cannot be read counts as foreign.
 */
export function foreignNames(kind: ContentKind, dir: string): string[] {
  const names = list(dir);
  if (names === null) return ['(unreadable)'];
  const out: string[] = [];
  for (const name of names) out.push(...(ownName(kind, dir, name) ?? [name]));
  return out;
}

/** "important.sql" or "a.sql, b.txt, c and 2 more": what a kept directory holds, for the user. */
export function describeForeign(names: string[]): string {
  const shown = names.slice(0, 3).join(', ');
  return names.length > 3 ? `${shown} and ${names.length - 3} more` : shown;
}
