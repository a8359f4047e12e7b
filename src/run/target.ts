/**
 * Starts the built-in server (`rtcap serve`) as a child process when a profile has no
 * target.url, waits for its one-line JSON ready message, and stops it at the end.
 *
 * What the server needs but nobody should read (its config with the JWT secret, the database
 * URL with its password, its Postgres data directory) lives in one private temporary
 * directory of the run, removed when the server is stopped — however the run ends.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  createWriteStream,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { binEntry } from '../load/paths.js';
import { pin } from '../load/pool.js';
import { errorLine, redactText, registerSecrets, urlSecrets } from '../redact/redact.js';
import { leftovers, removeLeftover, RUN_PREFIX, writeOwner } from '../server/db/leftovers.js';
import { PG_ROOT_PARENT_ENV } from '../server/db/root-parent.js';
import { raceTimer } from './abort.js';
import { sleep } from '../util/sleep.js';

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

export const BUILTIN_JWT_SECRET = 'super-secret-jwt-token-with-at-least-32-characters-long';

/** Thrown when the start was cancelled by `signal`; everything started is stopped by then. */
export class StartCancelled extends Error {
  constructor() {
    super('cancelled while the built-in server was starting');
  }
}

/** How long a server that is still starting gets to go after SIGINT before its group is killed. */
const CANCEL_GRACE_MS = 3_000;
/** How long a started server gets for its orderly shutdown (pools, then Postgres). */
const STOP_GRACE_MS = 10_000;

export async function startBuiltinServer(opts: {
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
}): Promise<BuiltinServer> {
  if (opts.signal?.aborted) throw new StartCancelled();
  // 0711: the postgres system user (when run as root) must reach its data directory inside;
  // nobody but us may list it, and the files in it are 0600.
  const privateDir = mkdtempSync(join(tmpdir(), RUN_PREFIX));
  chmodSync(privateDir, 0o711);
  // Who made it: a run killed with SIGKILL leaves it, and the owner record tells it is dead.
  writeOwner(privateDir);
  const removePrivateDir = () => rmSync(privateDir, { recursive: true, force: true });
  registerSecrets([BUILTIN_JWT_SECRET]);
  registerSecrets(configSecrets(opts.config));

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
  const urlFile = join(privateDir, 'database-url');
  if (opts.database) args.push('--database-url-file', urlFile);
  const log = createWriteStream(opts.logPath, { flags: 'a' });
  // Its own process group: a Ctrl-C at the terminal reaches the run, which then stops the
  // server in order (and writes its results) instead of the server vanishing under it; the
  // group also lets the run reap the server's Postgres if the server dies. The stdin pipe is
  // the server's lifeline to the run (--exit-with-stdin).
  const child: ChildProcess = spawn(process.execPath, args, {
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
    env: { ...process.env, [PG_ROOT_PARENT_ENV]: privateDir },
  });
  const groupAlive = () => {
    try {
      if (child.pid) process.kill(-child.pid, 0);
      return Boolean(child.pid);
    } catch {
      return false;
    }
  };
  const signalGroup = (sig: NodeJS.Signals) => {
    try {
      if (child.pid) process.kill(-child.pid, sig);
    } catch {
      /* group already gone */
    }
  };
  /** Waits up to `ms` for every process of the group to be gone. */
  const groupGone = async (ms: number) => {
    for (let waited = 0; waited < ms && groupAlive(); waited += 50) await sleep(50);
  };
  // A hard exit of the run (a second Ctrl-C, process.exit anywhere) still takes the server, its
  // Postgres and their files with it: only synchronous work is possible here.
  const onProcessExit = () => {
    signalGroup('SIGKILL');
    removePrivateDir();
  };
  process.on('exit', onProcessExit);
  const childGone = new Promise<void>((r) => child.once('exit', () => r()));
  const childRunning = () => child.exitCode === null && child.signalCode === null;
  let logEnded = false;
  // A log that cannot be written (a full disk) is given up, never an uncaught error: the run
  // directory's own writes report the disk and abort the run.
  log.on('error', () => (logEnded = true));
  const endLog = () => {
    if (!logEnded) log.end();
    logEnded = true;
  };
  /**
   * Kills whatever of the server is left (its Postgres too), then removes the private directory.
   */
  const reap = async (graceMs: number) => {
    await raceTimer(childGone, graceMs, undefined);
    // Postgres gets a moment for its own fast shutdown (it got the group's SIGINT or its server's
    // stop).
    await groupGone(childRunning() ? 0 : 2_000);
    signalGroup('SIGKILL');
    await groupGone(2_000);
    removePrivateDir();
    process.off('exit', onProcessExit);
    endLog();
  };

  if (opts.cpus && child.pid) pin(child.pid, opts.cpus);
  // The server's log is redacted line by line on its way to the run directory.
  const tail: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (raw) => {
    const line = redactText(raw);
    if (!logEnded) log.write(line + '\n');
    if (line.trim()) tail.push(line);
    // Enough to hold an uncaught error's first line above its stack and arguments.
    if (tail.length > 200) tail.splice(0, tail.length - 200);
  });
  let stopping = false;
  const exited = new Promise<string>((resolve) => {
    child.on('exit', (code, signal) => {
      if (stopping) return;
      // What it left behind (its Postgres) goes with it.
      void reap(0);
      // A crash says why on its last stderr line; a signal is the whole story.
      const last = code !== 0 && !signal && tail.length ? `: ${causeOf(tail)}` : '';
      resolve(`built-in server exited (${signal ?? `code ${code}`})${last}`);
    });
  });

  let ready: { port: number; url: string; workers?: number; database?: string | null };
  const cancel = () => {
    // Still starting: the whole group (server, initdb/cp, Postgres) gets SIGINT, Postgres's fast
    // shutdown.
    stopping = true;
    signalGroup('SIGINT');
  };
  opts.signal?.addEventListener('abort', cancel, { once: true });
  try {
    ready = await new Promise((resolve, reject) => {
      const timeoutMs = opts.startTimeoutMs ?? 90_000;
      const timer = setTimeout(() => {
        stopping = true;
        signalGroup('SIGINT');
        reject(
          new Error(
            `built-in server did not become ready within ${timeoutMs / 1000} s (log: ${opts.logPath})`,
          ),
        );
      }, timeoutMs);
      const rl = createInterface({ input: child.stdout! });
      rl.on('line', (line) => {
        if (!logEnded) log.write(redactText(line) + '\n');
        try {
          const m = JSON.parse(line) as { event?: string; port: number; url: string };
          if (m.event === 'ready') {
            clearTimeout(timer);
            resolve(m);
          }
        } catch {
          /* ordinary log line */
        }
      });
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        if (opts.signal?.aborted) return reject(new StartCancelled());
        // The stderr lines may still be arriving: give them a moment, then name the cause in one
        // line.
        setTimeout(
          () =>
            reject(
              new Error(
                `built-in server could not start (${signal ?? `code ${code}`}): ${causeOf(tail)} (log: ${opts.logPath})`,
              ),
            ),
          100,
        );
      });
      child.on('error', (e) => {
        clearTimeout(timer);
        reject(new Error(`built-in server could not be spawned: ${errorLine(e)}`));
      });
    });
  } catch (e) {
    await reap(CANCEL_GRACE_MS);
    throw e;
  } finally {
    opts.signal?.removeEventListener('abort', cancel);
  }

  let databaseConnectionString: string | null = null;
  try {
    databaseConnectionString = readFileSync(urlFile, 'utf8').trim() || null;
    rmSync(urlFile, { force: true });
  } catch {
    /* no database */
  }
  registerSecrets(urlSecrets(databaseConnectionString ?? ''));
  return {
    url: ready.url,
    databaseConnectionString,
    pid: child.pid!,
    workers: ready.workers ?? opts.workers,
    database: ready.database ?? null,
    exited,
    stop: async (graceMs = STOP_GRACE_MS) => {
      stopping = true;
      if (childRunning()) child.kill('SIGTERM');
      await reap(graceMs);
    },
  };
}

/**
 * Removes what runs that are gone left under the temp directory: a coordinator killed with
 * SIGKILL cannot remove its private directory (the server's config with its JWT secret, a
 * 40 MB Postgres cluster), so every run start removes every `rtcap-run-*` and `rtcap-pg-*`
 * whose owner is dead (server/db/leftovers judges which; a Postgres still running from one
 * is stopped first). Returns the paths removed.
 */
export async function removeDeadRunLeftovers(): Promise<string[]> {
  const removed: string[] = [];
  for (const e of leftovers()) {
    if (e.kind !== 'run' && e.kind !== 'pg') continue;
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

/**
 * One line naming why the server did not start, from its last stderr lines: the first line
 * that reads as a cause (an Error message, a "rtcap serve:" line), not the tail of a stack trace.
 */
export function causeOf(tail: readonly string[]): string {
  const lines = tail.map((l) => l.trim()).filter(Boolean);
  const serve = lines.filter((l) => l.startsWith('rtcap serve:')).pop();
  if (serve) return serve.replace(/^rtcap serve:\s*/, '');
  // An uncaught error prints its message first, then the stack and its fields.
  const error = lines.find((l) => /^\w*Error\b[^:]*: /.test(l));
  if (error) return error;
  const notStack = lines.filter((l) => !/^at\s|^Node\.js v|^[\]}|)]|^\^+$|^\{$/.test(l)).pop();
  return notStack ?? 'no output';
}
