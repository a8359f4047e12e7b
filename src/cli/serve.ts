/**
 * `rtcap serve`: the built-in realtime server (src/server/). Thin: its flags (serve-flags.ts)
 * become ServerOptions, and it calls startServer / startCluster.
 *
 * With `--ready-json` exactly one JSON line is printed on stdout once the server listens
 * (and its database is up or known to be down); `rtcap run` reads it (src/run/target.ts).
 * Everything else goes to stderr.
 */
import { writeFileSync } from 'node:fs';
import type { CommandModule } from 'yargs';
import { startCluster } from '../server/cluster/primary.js';
import {
  ConfigError,
  loadServerConfigFile,
  parseServerConfig,
  type ServerConfigFile,
} from '../builtin/config.js';
import { type ServerOptions } from '../server/options.js';
import { startServer } from '../server/server.js';
import { loadJwks } from '../server/jwks.js';
import { EXIT } from '../util/exit-codes.js';
import { QUOTA_FLAGS, serveArgsFrom, serveBuilder, type ServeArgs } from './serve-flags.js';

export interface RunningServe {
  port: number;
  url: string;
  workers: number;
  database: string | null;
  close(): Promise<void>;
}

/** Builds ServerOptions from parsed flags; flags win over the config file. */
export function serveOptions(a: ServeArgs): ServerOptions {
  let config: ServerConfigFile = a.config ? loadServerConfigFile(a.config) : {};
  if (a.configJson) {
    let raw: unknown;
    try {
      raw = JSON.parse(a.configJson);
    } catch (e) {
      throw new ConfigError(`--config-json: ${(e as Error).message}`);
    }
    config = { ...config, ...parseServerConfig(raw, '--config-json') };
  }
  const overrides: Record<string, unknown> = {};
  for (const [flag, key] of Object.entries(QUOTA_FLAGS)) {
    const v = a.quotas[flag as keyof typeof QUOTA_FLAGS];
    if (v !== undefined) overrides[key] = v;
  }
  if (a.privateOnly !== undefined) overrides.private_only = a.privateOnly;
  if (a.presenceEnabled !== undefined) overrides.presence_enabled = a.presenceEnabled;
  if (a.supabaseDefaults) overrides.supabase_defaults = true;
  config = parseServerConfig({ ...config, ...overrides }, 'flags');
  return {
    port: a.port,
    host: a.host,
    jwtSecret: a.jwtSecret,
    ...(a.tlsCert && a.tlsKey ? { tls: { certFile: a.tlsCert, keyFile: a.tlsKey } } : {}),
    config,
    timings: a.timings,
    database: a.database ? { databaseUrl: a.databaseUrl } : false,
  };
}

/** Starts one process or a cluster and prints the ready line. */
export async function runServe(
  a: ServeArgs,
  out: (line: string) => void = (l) => process.stdout.write(`${l}\n`),
): Promise<RunningServe> {
  const opts = serveOptions(a);
  if (a.jwks) opts.config = { ...opts.config, jwt_jwks: await loadJwks(a.jwks) };
  const running =
    a.workers > 1
      ? await startCluster({ ...opts, workers: a.workers, accept: a.accept })
      : await startServer(opts).then((s) => ({ ...s, workers: 1 }));
  const ready = {
    event: 'ready',
    port: running.port,
    pid: process.pid,
    workers: running.workers,
    url: running.url,
    database: running.databaseUrl,
  };
  // rtcap run's own loaders (Postgres Changes inserts) need the password; it goes to a
  // private file, never to stdout or a log — written before the ready line, on which rtcap run
  // reads it.
  const urlFileWritten = Boolean(a.databaseUrlFile && running.databaseConnectionString);
  if (urlFileWritten)
    writeFileSync(a.databaseUrlFile!, running.databaseConnectionString + '\n', { mode: 0o600 });
  if (a.readyJson) out(JSON.stringify(ready));
  if (!urlFileWritten)
    process.stderr.write(
      `rtcap serve: listening on ${running.url} (${running.workers} process${running.workers > 1 ? 'es' : ''}, database ${running.databaseUrl ?? 'off'})\n`,
    );
  return {
    port: running.port,
    url: running.url,
    workers: running.workers,
    database: running.databaseUrl,
    close: () => running.close(),
  };
}

/**
 * Why the server cannot listen where the flags say (a port in use or not allowed, an address
 * this machine does not have): a usage error naming the flag, as --metrics-port's is; null for
 * any other failure.
 */
export function listenProblem(e: unknown, a: Pick<ServeArgs, 'port' | 'host'>): string | null {
  const { code, syscall } = (e ?? {}) as NodeJS.ErrnoException;
  if (syscall !== 'listen' && syscall !== 'getaddrinfo') return null;
  const flag = code === 'EADDRINUSE' || code === 'EACCES' ? `--port ${a.port}` : `--host ${a.host}`;
  return `${flag}: cannot listen on ${a.host}:${a.port} (${code ?? (e as Error).message})`;
}

export const serveCommand: CommandModule = {
  command: 'serve',
  describe: 'run the built-in Supabase-Realtime-compatible server',
  builder: serveBuilder,
  handler: async (argv) => {
    let running: RunningServe;
    const args = serveArgsFrom(argv as Record<string, unknown>);
    try {
      running = await runServe(args);
    } catch (e) {
      const listen = listenProblem(e, args);
      process.stderr.write(`rtcap serve: ${listen ?? (e as Error).message}\n`);
      process.exit(e instanceof ConfigError || listen ? EXIT.usage : EXIT.failed);
    }
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      process.stderr.write(`rtcap serve: ${signal}, shutting down\n`);
      const force = setTimeout(() => process.exit(EXIT.failed), 15_000);
      force.unref();
      running.close().then(
        () => process.exit(EXIT.ok),
        (e) => {
          process.stderr.write(`rtcap serve: shutdown failed: ${(e as Error).message}\n`);
          process.exit(EXIT.failed);
        },
      );
    };
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGINT', () => stop('SIGINT'));
    // Started by `rtcap run`: its stdin is a pipe from the run; when the run is gone (even
    // killed with SIGKILL) the pipe closes, and the server and its Postgres must not linger.
    if (argv['exit-with-stdin']) {
      process.stdin.on('end', () => stop('parent gone (stdin closed)'));
      process.stdin.on('error', () => stop('parent gone (stdin error)'));
      process.stdin.resume();
    }
  },
};

export default serveCommand;
