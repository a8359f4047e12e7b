/**
 * The template cluster every embedded start copies: `initdb` costs ~0.8–1.2 s of a ~1.5 s cold
 * start, and the migration some more, and both give the same cluster every time. So it is built
 * once per PostgreSQL build, initdb flags and migration SQL into a directory under os.tmpdir()
 * (published with an atomic rename), and templates not used for an hour are removed.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadEmbeddedPostgres } from './embedded-binaries.js';
import {
  HOST,
  INITDB_FLAGS,
  type InstanceSpec,
  makeRoot,
  newInstance,
  startOnFreePort,
  stopInstance,
  USER,
} from './embedded-instance.js';
import { TEMPLATE_PREFIX, writeOwner } from '../../builtin/pg-leftovers.js';
import { DEFAULT_PUBLICATION, migrate, migrationSql } from './migration.js';

/** Old templates (another migration or PostgreSQL version) not used for an hour. */
async function removeStaleTemplates(keep: string): Promise<void> {
  const names = await fs.readdir(os.tmpdir()).catch(() => [] as string[]);
  for (const name of names.slice(0, 10_000)) {
    if (
      !name.startsWith(TEMPLATE_PREFIX) ||
      name === keep ||
      name.startsWith(`${TEMPLATE_PREFIX}build-`)
    )
      continue;
    const dir = path.join(os.tmpdir(), name);
    const st = await fs.stat(dir).catch(() => null);
    if (st && Date.now() - st.mtimeMs > 3_600_000)
      await fs.rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** The template's directory name: a hash of the PostgreSQL build, initdb flags, user and SQL. */
function templateName(version: string, withSchema: boolean): string {
  const schemaKey = withSchema ? migrationSql(DEFAULT_PUBLICATION) : 'bare';
  const key = createHash('sha256')
    .update(`${version}\n${INITDB_FLAGS.join(' ')}\n${os.userInfo().uid}\n${schemaKey}`)
    .digest('hex')
    .slice(0, 16);
  return `${TEMPLATE_PREFIX}${key}`;
}

/** A published template's data directory and password. */
function readTemplate(dir: string): { dataDir: string; password: string } {
  return {
    dataDir: path.join(dir, 'data'),
    password: readFileSync(path.join(dir, 'password'), 'utf8'),
  };
}

/** Starts the new cluster, runs the migration for the default publication, stops it cleanly. */
async function migrateTemplate(
  spec: Omit<InstanceSpec, 'onLog'>,
  log: (s: string) => void,
): Promise<void> {
  const tail: string[] = [];
  const { instance, port } = await startOnFreePort({ ...spec, onLog: (l) => tail.push(l) }, tail);
  try {
    const c = new pg.Client({
      host: HOST,
      port,
      user: USER,
      password: spec.password,
      database: 'postgres',
    });
    await c.connect();
    try {
      await migrate(c, DEFAULT_PUBLICATION);
    } finally {
      await c.end();
    }
  } finally {
    await stopInstance(instance, log);
  }
}

/**
 * Publishes the finished build (begun at `t0`) as `dir` with an atomic rename, then removes
 * stale templates; when another process published the same template first, the build is
 * dropped for theirs.
 */
async function publishTemplate(
  build: string,
  dir: string,
  t0: number,
  log: (s: string) => void,
): Promise<void> {
  await fs.chmod(build, 0o755); // shared read-only from here on
  try {
    await fs.rename(build, dir);
    log(`embedded postgres: built template ${dir} in ${Math.round(performance.now() - t0)} ms`);
    await removeStaleTemplates(path.basename(dir));
  } catch {
    // Another process published the same template first; use theirs.
    await fs.rm(build, { recursive: true, force: true });
  }
}

/**
 * Builds, once per PostgreSQL build, initdb flags and migration, the cluster every start
 * copies: initdb, then (withSchema) a start, the migration for the default publication,
 * and a clean shutdown, so a start needs neither initdb nor the migration.
 */
export async function ensureTemplate(
  version: string,
  withSchema: boolean,
  log: (s: string) => void,
): Promise<{ dataDir: string; password: string }> {
  const dir = path.join(os.tmpdir(), templateName(version, withSchema));
  if (existsSync(path.join(dir, 'ready'))) return readTemplate(dir);

  const build = await makeRoot(`${TEMPLATE_PREFIX}build-`);
  try {
    // Whose build it is: one left by a process stopped mid-build is removed at once.
    writeOwner(build);
    const password = randomBytes(18).toString('base64url');
    const t0 = performance.now();
    const spec = {
      dataDir: path.join(build, 'data'),
      password,
      socketDir: build,
      persistent: true,
    };
    await newInstance(
      await loadEmbeddedPostgres(),
      { ...spec, onLog: () => undefined },
      0,
    ).initialise();
    if (withSchema) await migrateTemplate(spec, log);
    await fs.writeFile(path.join(build, 'password'), password, { mode: 0o600 });
    await fs.writeFile(path.join(build, 'ready'), new Date().toISOString());
    await publishTemplate(build, dir, t0, log);
  } catch (e) {
    await fs.rm(build, { recursive: true, force: true });
    throw e;
  }
  return readTemplate(dir);
}
