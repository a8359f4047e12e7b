/**
 * Starts the built-in server (`rtcap serve`) as a child process when a profile has no
 * target.url, waits for its one-line JSON ready message, and stops it at the end.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { binEntry } from '../load/paths.js';
import { pin } from '../load/pool.js';

export interface BuiltinServer {
  url: string;
  pid: number;
  workers: number;
  /** Redacted, for logs and reports. */
  database: string | null;
  /** Unredacted connection string for rtcap's own loaders (Postgres Changes inserts); never logged. */
  databaseConnectionString: string | null;
  stop(): Promise<void>;
  /** Resolves if the server process exits before stop() is called. */
  exited: Promise<string>;
}

export const BUILTIN_JWT_SECRET = 'super-secret-jwt-token-with-at-least-32-characters-long';

export async function startBuiltinServer(opts: {
  workers: number;
  config: Record<string, unknown>;
  database: boolean;
  cpus: string | null;
  logPath: string;
  configPath: string;
  startTimeoutMs?: number;
  /** More `rtcap serve` flags (e.g. `rtcap quotas` passes the rate tick it checks against). */
  extraArgs?: string[];
}): Promise<BuiltinServer> {
  const args = [binEntry(), 'serve', '--port', '0', '--host', '127.0.0.1', '--ready-json', '--exit-with-stdin', '--workers', String(opts.workers), ...(opts.extraArgs ?? [])];
  if (Object.keys(opts.config).length > 0) {
    writeFileSync(opts.configPath, JSON.stringify(opts.config, null, 2));
    args.push('--config', opts.configPath);
  }
  if (!opts.database) args.push('--no-database');
  const urlFile = join(mkdtempSync(join(tmpdir(), 'rtcap-db-')), 'url');
  if (opts.database) args.push('--database-url-file', urlFile);
  const log = createWriteStream(opts.logPath, { flags: 'a' });
  // Its own process group: a Ctrl-C at the terminal reaches the run, which then stops the
  // server in order (and writes its results) instead of the server vanishing under it; the
  // group also lets the run reap the server's Postgres if the server dies. The stdin pipe is
  // the server's lifeline to the run (--exit-with-stdin).
  const child: ChildProcess = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  const killGroup = () => {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      /* group already gone */
    }
  };
  if (opts.cpus && child.pid) pin(child.pid, opts.cpus);
  child.stderr!.pipe(log);
  const tail: string[] = [];
  child.stderr!.on('data', (d: Buffer) => {
    tail.push(...d.toString().split('\n').filter(Boolean));
    if (tail.length > 20) tail.splice(0, tail.length - 20);
  });
  let stopping = false;
  const exited = new Promise<string>((resolve) => {
    child.on('exit', (code, signal) => {
      if (stopping) return;
      // What it left behind (its Postgres) goes with it.
      killGroup();
      // A crash says why on its last stderr line; a signal is the whole story.
      const last = code !== 0 && !signal && tail.length ? `: ${tail[tail.length - 1]}` : '';
      resolve(`built-in server exited (${signal ?? `code ${code}`})${last}`);
    });
  });
  const ready = await new Promise<{ port: number; url: string; workers?: number; database?: string | null }>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`built-in server did not become ready within ${(opts.startTimeoutMs ?? 90_000) / 1000} s (log: ${opts.logPath})`));
    }, opts.startTimeoutMs ?? 90_000);
    const rl = createInterface({ input: child.stdout! });
    rl.on('line', (line) => {
      log.write(line + '\n');
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
      reject(new Error(`built-in server exited before it was ready (${signal ?? `code ${code}`}): ${tail.slice(-3).join(' | ') || 'no output'} (log: ${opts.logPath})`));
    });
  });
  let databaseConnectionString: string | null = null;
  try {
    databaseConnectionString = readFileSync(urlFile, 'utf8').trim() || null;
    rmSync(dirname(urlFile), { recursive: true, force: true });
  } catch {
    /* no database */
  }
  return {
    url: ready.url,
    databaseConnectionString,
    pid: child.pid!,
    workers: ready.workers ?? opts.workers,
    database: ready.database ?? null,
    exited,
    stop: async () => {
      stopping = true;
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await gone;
      clearTimeout(t);
      killGroup();
      log.end();
    },
  };
}
