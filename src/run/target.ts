/**
 * Starts the built-in server (`rtcap serve`) as a child process when a profile has no
 * target.url, waits for its one-line JSON ready message, and stops it at the end.
 *
 * What the server needs but nobody should read (its config with the JWT secret, the database
 * URL with its password, its Postgres data directory) lives in one private temporary
 * directory of the run, removed when the server is stopped — however the run ends.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binEntry } from '../util/paths.js';
import { pin } from '../load/pool.js';
import { testFault } from './test-fault.js';
import { registerSecrets, urlSecrets } from '../redact/redact.js';
import {
  leftovers,
  removeAbandonedBuilds,
  removeLeftover,
  RUN_PREFIX,
  writeOwner,
} from '../builtin/pg-leftovers.js';
import { PG_ROOT_PARENT_ENV } from '../builtin/pg-root-parent.js';
import { DEV_JWT_SECRET } from '../builtin/config.js';
import { ServerProcess, StartCancelled, type ReadyMessage } from './server-process.js';

export { StartCancelled };

export interface BuiltinServer {
  url: string;
  pid: number;
  workers: number;
  /** Redacted, for logs and reports. */
  database: string | null;
  /**
   * Unredacted connection string for rtcap's own loaders (Postgres Changes inserts); never logged.
   */
  databaseConnectionString: string | null;
  /**
   * Orderly shutdown (SIGTERM), its whole process group killed after `graceMs`; its files removed.
   */
  stop(graceMs?: number): Promise<void>;
  /** Resolves if the server process exits before stop() is called. */
  exited: Promise<string>;
}

/** How long a server that is still starting gets to go after SIGINT before its group is killed. */
const CANCEL_GRACE_MS = 3_000;
/** How long a started server gets for its orderly shutdown (pools, then Postgres). */
const STOP_GRACE_MS = 10_000;

/** What the built-in server is started with. */
export interface BuiltinServerOptions {
  workers: number;
  /** How the processes share new connections (`rtcap serve --accept`); default round-robin. */
  accept?: 'round-robin' | 'shared';
  config: Record<string, unknown>;
  database: boolean;
  cpus: string | null;
  logPath: string;
  startTimeoutMs?: number;
  /** More `rtcap serve` flags (e.g. `rtcap quotas` passes the rate tick it checks against). */
  extraArgs?: string[];
  /**
   * Aborting it stops the server whatever it is doing, and the start rejects with StartCancelled.
   */
  signal?: AbortSignal;
}

export async function startBuiltinServer(opts: BuiltinServerOptions): Promise<BuiltinServer> {
  if (opts.signal?.aborted) throw new StartCancelled();
  const privateDir = makePrivateDir();
  registerSecrets([DEV_JWT_SECRET]);
  registerSecrets(configSecrets(opts.config));
  const urlFile = join(privateDir, 'database-url');
  // Its own process group: a Ctrl-C at the terminal reaches the run, which then stops the
  // server in order (and writes its results) instead of the server vanishing under it; the
  // group also lets the run reap the server's Postgres if the server dies. The stdin pipe is
  // the server's lifeline to the run (--exit-with-stdin).
  const child: ChildProcess = spawn(process.execPath, serveArgs(opts, privateDir, urlFile), {
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
    env: { ...process.env, [PG_ROOT_PARENT_ENV]: privateDir },
  });
  const proc = new ServerProcess(child, opts.logPath, () => {
    rmSync(privateDir, { recursive: true, force: true });
    // A cache the server was building when it was stopped (beside the private directory).
    removeAbandonedBuilds();
  });
  const exited = proc.exited();
  try {
    testFault('server-pin');
    if (opts.cpus && child.pid) pin(child.pid, opts.cpus);
  } catch (e) {
    // Nothing else holds the server yet: it is stopped (and its files removed) here.
    proc.stopping = true;
    proc.signalGroup('SIGINT');
    await proc.reap(CANCEL_GRACE_MS);
    throw e;
  }
  const ready = await readyOrReaped(proc, opts);
  const databaseConnectionString = takeDatabaseUrl(urlFile);
  return {
    url: ready.url,
    databaseConnectionString,
    pid: child.pid!,
    workers: ready.workers ?? opts.workers,
    database: ready.database ?? null,
    exited,
    stop: async (graceMs = STOP_GRACE_MS) => {
      proc.stopping = true;
      if (proc.running()) child.kill('SIGTERM');
      await proc.reap(graceMs);
    },
  };
}

/**
 * The run's private directory: 0711, so the postgres system user (when run as root) reaches its
 * data directory inside while nobody but us may list it (the files in it are 0600), with an owner
 * record, since a run killed with SIGKILL leaves it and the record tells it is dead.
 */
function makePrivateDir(): string {
  const privateDir = mkdtempSync(join(tmpdir(), RUN_PREFIX));
  chmodSync(privateDir, 0o711);
  writeOwner(privateDir);
  return privateDir;
}

/** `rtcap serve`'s command line; the config (with its secrets) goes into the private directory. */
function serveArgs(opts: BuiltinServerOptions, privateDir: string, urlFile: string): string[] {
  const args = [
    binEntry(),
    'serve',
    '--port',
    '0',
    '--host',
    '127.0.0.1',
    '--ready-json',
    '--exit-with-stdin',
    '--workers',
    String(opts.workers),
    ...(opts.accept === 'shared' ? ['--accept', 'shared'] : []),
    ...(opts.extraArgs ?? []),
  ];
  if (Object.keys(opts.config).length > 0) {
    const configPath = join(privateDir, 'server-config.json');
    writeFileSync(configPath, JSON.stringify(opts.config, null, 2), { mode: 0o600 });
    args.push('--config', configPath);
  }
  if (!opts.database) args.push('--no-database');
  if (opts.database) args.push('--database-url-file', urlFile);
  return args;
}

/**
 * The server's ready message. A start that fails, times out or is cancelled (the signal: the whole
 * group, server, initdb/cp and Postgres, gets SIGINT, Postgres's fast shutdown) is reaped before
 * it rejects.
 */
async function readyOrReaped(
  proc: ServerProcess,
  opts: BuiltinServerOptions,
): Promise<ReadyMessage> {
  const cancel = () => {
    proc.stopping = true;
    proc.signalGroup('SIGINT');
  };
  opts.signal?.addEventListener('abort', cancel, { once: true });
  try {
    return await proc.ready({
      timeoutMs: opts.startTimeoutMs ?? 90_000,
      logPath: opts.logPath,
      signal: opts.signal,
    });
  } catch (e) {
    await proc.reap(CANCEL_GRACE_MS);
    throw e;
  } finally {
    opts.signal?.removeEventListener('abort', cancel);
  }
}

/** The database URL the server wrote (a secret from now on), its file removed; null: none. */
function takeDatabaseUrl(urlFile: string): string | null {
  let url: string | null = null;
  try {
    url = readFileSync(urlFile, 'utf8').trim() || null;
    rmSync(urlFile, { force: true });
  } catch {
    /* no database */
  }
  registerSecrets(urlSecrets(url ?? ''));
  return url;
}

/**
 * Removes what runs that are gone left under the temp directory: a coordinator killed with
 * SIGKILL cannot remove its private directory (the server's config with its JWT secret, a
 * 40 MB Postgres cluster), so every run start removes every `rtcap-run-*` and `rtcap-pg-*`
 * whose owner is dead, and every cache build whose builder is (builtin/pg-leftovers judges
 * which; a Postgres still running from one is stopped first). Returns the paths removed.
 */
export async function removeDeadRunLeftovers(): Promise<string[]> {
  const removed: string[] = [];
  for (const e of leftovers()) {
    if (e.kind !== 'run' && e.kind !== 'pg' && e.kind !== 'build') continue;
    try {
      await removeLeftover(e);
      removed.push(e.path);
    } catch {
      /* another run removed it first, or it is not ours to remove: rtcap clean reports it */
    }
  }
  return removed;
}

/** The values under credential-like keys of the server config (tenant jwt_secret, ...). */
function configSecrets(config: unknown, out: string[] = []): string[] {
  if (Array.isArray(config)) for (const v of config) configSecrets(v, out);
  else if (config && typeof config === 'object') {
    for (const [k, v] of Object.entries(config)) {
      if (typeof v === 'string' && /secret|password|token|key/i.test(k)) out.push(v);
      else configSecrets(v, out);
    }
  }
  return out;
}
