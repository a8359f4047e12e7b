/**
 * `rtcap serve`'s flags: where it listens, the tenant config and processes, the database, the
 * tenant's quotas and the test timings, and the ServeArgs they parse into.
 */
import type { Argv } from 'yargs';
import { type ServerTimings } from '../server/options.js';
import { checked, file, fileOrHttpUrl, int, oneOf, outFile, port, UsageError } from './flags.js';

/** The most server processes `--workers` may ask for. */
const MAX_SERVER_WORKERS = 256;
/** A quota or pool size: a whole number that fits the server's 32-bit counters. */
const QUOTA = int(0, 2 ** 31 - 1);
/** A timing for tests: up to an hour. */
const TIMING_MS = int(0, 3_600_000);

/** Quota flags: flag name → config key (docs/PROTOCOL.md §8.2). */
export const QUOTA_FLAGS = {
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

/** Every flag of `rtcap serve`, and the rule that --tls-cert and --tls-key go together. */
export function serveBuilder(y: Argv): Argv {
  const groups = [listenOptions, configOptions, databaseOptions, tenantOptions, timingOptions];
  return groups
    .reduce((c, group) => group(c), y)
    .check((argv) => {
      if (Boolean(argv['tls-cert']) !== Boolean(argv['tls-key']))
        throw new UsageError('--tls-cert and --tls-key go together: give both');
      return true;
    });
}

/** The parsed flags as ServeArgs. */
export function serveArgsFrom(argv: Record<string, unknown>): ServeArgs {
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
