/**
 * `rtcap serve`: the built-in realtime server (src/server/). Thin: parses flags into
 * ServerOptions and calls startServer / startCluster.
 *
 * With `--ready-json` exactly one JSON line is printed on stdout once the server listens
 * (and its database is up or known to be down); `rtcap run` reads it (src/run/target.ts).
 * Everything else goes to stderr.
 */
import { writeFileSync } from 'node:fs';
import type { Argv, CommandModule } from 'yargs';
import { startCluster } from '../server/cluster/primary.js';
import {
  ConfigError,
  loadServerConfigFile,
  parseServerConfig,
  type ServerConfigFile,
} from '../builtin/config.js';
import { type ServerOptions, type ServerTimings } from '../server/options.js';
import { startServer } from '../server/server.js';
import { loadJwks } from '../server/jwks.js';
import { EXIT } from '../util/exit-codes.js';
import { checked, file, fileOrHttpUrl, int, oneOf, outFile, port, UsageError } from './flags.js';

/** The most server processes `--workers` may ask for. */
const MAX_SERVER_WORKERS = 256;
/** A quota or pool size: a whole number that fits the server's 32-bit counters. */
const QUOTA = int(0, 2 ** 31 - 1);
/** A timing for tests: up to an hour. */
const TIMING_MS = int(0, 3_600_000);

/** Quota flags: flag name → config key (docs/PROTOCOL.md §8.2). */
const QUOTA_FLAGS = {
  'max-concurrent-users': 'max_concurrent_users',
  'max-joins-per-second': 'max_joins_per_second',
  'max-events-per-second': 'max_events_per_second',
  'max-presence-events-per-second': 'max_presence_events_per_second',
  'max-channels-per-client': 'max_channels_per_client',
  'max-payload-size-in-kb': 'max_payload_size_in_kb',
  'max-client-presence-events-per-window': 'max_client_presence_events_per_window',
  'client-presence-window-ms': 'client_presence_window_ms',
  'db-pool': 'db_pool',
  'subs-pool-size': 'subs_pool_size',
} as const;

const TIMING_FLAGS = {
  'idle-timeout-ms': 'idleTimeoutMs',
  'connect-error-backoff-ms': 'connectErrorBackoffMs',
  'channel-error-backoff-ms': 'channelErrorBackoffMs',
  'rate-tick-ms': 'rateTickMs',
} as const satisfies Record<string, keyof ServerTimings>;

export interface ServeArgs {
  port: number;
  host: string;
  jwtSecret?: string;
  /** JWKS file or URL: asymmetric tokens (ES256, RS256) verified with these public keys. */
  jwks?: string;
  tlsCert?: string;
  tlsKey?: string;
  config?: string;
  configJson?: string;
  workers: number;
  /** How the processes share new connections (--workers > 1); default round-robin. */
  accept?: 'round-robin' | 'shared';
  databaseUrl?: string;
  database: boolean;
  readyJson: boolean;
  /** Where to write the unredacted database URL (mode 0600) for rtcap's own loaders. */
  databaseUrlFile?: string;
  supabaseDefaults: boolean;
  privateOnly?: boolean;
  presenceEnabled?: boolean;
  quotas: Partial<Record<keyof typeof QUOTA_FLAGS, number>>;
  timings: Partial<ServerTimings>;
}

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

/** Where it listens and how clients prove who they are: port, host, tokens, TLS. */
function listenOptions(y: Argv): Argv {
  return y
    .option(
      'port',
      checked('port', port, { default: '4000', describe: 'TCP port; 0 picks a free one' }),
    )
    .option('host', { type: 'string', default: '127.0.0.1', describe: 'address to listen on' })
    .option('jwt-secret', {
      type: 'string',
      describe: 'HS256 secret for tokens (default: the Supabase dev secret)',
    })
    .option(
      'jwks',
      checked('jwks', fileOrHttpUrl, {
        describe:
          "JWKS file or URL (a Supabase project's /auth/v1/.well-known/jwks.json): ES256/RS256 tokens verified with these public keys, besides HS256",
      }),
    )
    .option(
      'tls-cert',
      checked('tls-cert', file, {
        describe: 'PEM certificate (chain) file: serve wss:// (with --tls-key)',
      }),
    )
    .option(
      'tls-key',
      checked('tls-key', file, { describe: 'PEM private key file of --tls-cert' }),
    );
}

/** The tenant config (file or inline) and the server processes sharing the port. */
function configOptions(y: Argv): Argv {
  return y
    .option(
      'config',
      checked('config', file, {
        describe:
          'tenant config, YAML or JSON: {tenants?: [{id, jwt_secret?, ...quotas}], ...defaults}',
      }),
    )
    .option('config-json', {
      type: 'string',
      describe: 'the same config inline as JSON (merged over --config)',
    })
    .option(
      'workers',
      checked('workers', int(1, MAX_SERVER_WORKERS), {
        default: '1',
        describe: 'server processes sharing the port (PubSub between them)',
      }),
    )
    .option(
      'accept',
      checked('accept', oneOf(['round-robin', 'shared'] as const), {
        default: 'round-robin',
        describe:
          'with --workers: the primary hands each connection to the next process (round-robin), ' +
          'or every process accepts from the shared socket (shared: no hand-off round trip)',
      }),
    );
}

/** The tenant database, and what `rtcap run` asks of a server it starts (stdin, ready line). */
function databaseOptions(y: Argv): Argv {
  return y
    .option('database-url', {
      type: 'string',
      describe: 'use this PostgreSQL instead of starting an embedded one',
    })
    .option('database', {
      type: 'boolean',
      default: true,
      describe: 'start the tenant database (--no-database: public broadcast and presence only)',
    })
    .option('exit-with-stdin', {
      type: 'boolean',
      hidden: true,
      describe: 'shut down when stdin closes (the parent is gone)',
    })
    .option(
      'database-url-file',
      checked('database-url-file', outFile, {
        hidden: true,
        describe: 'write the unredacted database URL to this file (mode 0600) when ready',
      }),
    )
    .option('ready-json', {
      type: 'boolean',
      default: false,
      describe: 'print one JSON line on stdout when ready',
    });
}

/** The tenant's settings as flags: Supabase's defaults, private-only, presence, each quota. */
function tenantOptions(y: Argv): Argv {
  let c = y
    .option('supabase-defaults', {
      type: 'boolean',
      default: false,
      describe:
        "start from a new Supabase tenant's quotas (200 users, 100 events/s, ...) instead of unlimited",
    })
    .option('private-only', { type: 'boolean', describe: 'refuse public channels (PrivateOnly)' })
    .option('presence-enabled', { type: 'boolean', describe: 'presence on for every channel' });
  for (const [flag, key] of Object.entries(QUOTA_FLAGS))
    c = c.option(flag, checked(flag, QUOTA, { describe: `tenant ${key}` }));
  return c;
}

/** The server's timings, shortened by tests; hidden from --help. */
function timingOptions(y: Argv): Argv {
  let c = y;
  for (const flag of Object.keys(TIMING_FLAGS))
    c = c.option(
      flag,
      checked(flag, TIMING_MS, { describe: `${flag.replace(/-/g, ' ')} (tests)`, hidden: true }),
    );
  return c;
}

function builder(y: Argv): Argv {
  const groups = [listenOptions, configOptions, databaseOptions, tenantOptions, timingOptions];
  return groups
    .reduce((c, group) => group(c), y)
    .check((argv) => {
      if (Boolean(argv['tls-cert']) !== Boolean(argv['tls-key']))
        throw new UsageError('--tls-cert and --tls-key go together: give both');
      return true;
    });
}

function toArgs(argv: Record<string, unknown>): ServeArgs {
  const quotas: ServeArgs['quotas'] = {};
  for (const flag of Object.keys(QUOTA_FLAGS))
    if (typeof argv[flag] === 'number')
      quotas[flag as keyof typeof QUOTA_FLAGS] = argv[flag] as number;
  const timings: Partial<ServerTimings> = {};
  for (const [flag, key] of Object.entries(TIMING_FLAGS))
    if (typeof argv[flag] === 'number') timings[key] = argv[flag] as number;
  return {
    port: argv.port as number,
    host: argv.host as string,
    jwtSecret: argv['jwt-secret'] as string | undefined,
    jwks: argv.jwks as string | undefined,
    tlsCert: argv['tls-cert'] as string | undefined,
    tlsKey: argv['tls-key'] as string | undefined,
    config: argv.config as string | undefined,
    configJson: argv['config-json'] as string | undefined,
    workers: argv.workers as number,
    accept: argv.accept as 'round-robin' | 'shared',
    databaseUrl: argv['database-url'] as string | undefined,
    database: argv.database as boolean,
    readyJson: argv['ready-json'] as boolean,
    databaseUrlFile: argv['database-url-file'] as string | undefined,
    supabaseDefaults: argv['supabase-defaults'] as boolean,
    privateOnly: argv['private-only'] as boolean | undefined,
    presenceEnabled: argv['presence-enabled'] as boolean | undefined,
    quotas,
    timings,
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
  builder,
  handler: async (argv) => {
    let running: RunningServe;
    const args = toArgs(argv as Record<string, unknown>);
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
