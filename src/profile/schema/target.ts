/**
 * The profile's `target` section: the server under test — its URL and wire format, the instance
 * its CPU % and memory % are a share of, how connections authenticate, TLS, the built-in server
 * rtcap starts when no URL is given, and where the server's resources are sampled from.
 */
import { z } from 'zod';
import { wsUrlProblem } from '../ws-url.js';
import { duration, meta, positiveInt } from './fields.js';

export const instanceSchema = z
  .object({
    vcpus: z
      .number()
      .positive()
      .default(2)
      .describe(
        'vCPUs of the server instance; server CPU % is of these (200 % of one core on 2 vCPUs is 100 %)',
      ),
    memory_mb: z
      .number()
      .positive()
      .default(4096)
      .describe('memory of the server instance in MiB; server memory % is RSS of this'),
  })
  .strict();

export const authSchema = z
  .object({
    apikey: z
      .string()
      .optional()
      .describe('a fixed socket token (JWT); `${ENV_VAR}` references are expanded. Never printed.')
      .meta(meta({ env: true, secret: 'value' })),
    apikey_in: z
      .enum(['query', 'header'])
      .default('query')
      .describe('send the token as the `apikey` query parameter or the `x-api-key` header'),
    jwt_secret: z
      .string()
      .optional()
      .describe(
        'HS256 secret to mint a token per connection (role, exp, sub). `${ENV_VAR}` expanded. Never printed.',
      )
      .meta(meta({ env: true, secret: 'value' })),
    role: z.string().default('anon').describe('`role` claim of minted tokens'),
    token_ttl: duration
      .default(3_600_000)
      .describe(
        'lifetime of minted tokens; open channels renew theirs (an access_token push, as realtime-js does) when half of it is left',
      ),
    token_file: z
      .string()
      .optional()
      .describe('file with one JWT per line; connection i uses line i mod n'),
    private_key_file: z
      .string()
      .optional()
      .describe(
        'PEM private key (PKCS#8) to mint a token per connection with an asymmetric alg, like Supabase signing keys; the server verifies it from its JWKS',
      ),
    alg: z
      .enum(['ES256', 'ES384', 'RS256', 'RS384', 'RS512', 'PS256', 'EdDSA'])
      .default('ES256')
      .describe('signing alg of tokens minted with private_key_file'),
    kid: z
      .string()
      .optional()
      .describe(
        '`kid` header of tokens minted with private_key_file: the JWKS key the server picks',
      ),
  })
  .strict();

export const tlsSchema = z
  .object({
    ca: z
      .string()
      .optional()
      .describe(
        'PEM file of the CA(s) that signed the server certificate (besides the system roots)',
      ),
    cert: z.string().optional().describe('PEM client certificate file (mutual TLS)'),
    key: z.string().optional().describe('PEM private key file of the client certificate'),
    insecure: z
      .boolean()
      .default(false)
      .describe(
        'accept any server certificate (testing only: the connection is not authenticated)',
      ),
  })
  .strict();

/** Settings of the built-in server when rtcap starts it (no target.url). */
export const builtinServerSchema = z
  .object({
    workers: positiveInt.default(1).describe('server processes sharing the port'),
    accept: z
      .enum(['round-robin', 'shared'])
      .default('round-robin')
      .describe(
        "how several server processes share new connections: 'round-robin' (the primary accepts " +
          'each and hands it to the next process: even, but every hand-off waits for that ' +
          "process's reply) or 'shared' (each process accepts from the one listening socket: no " +
          'hand-off, the spread left to the kernel)',
      ),
    config: z
      .record(z.string(), z.unknown())
      .default({})
      .describe('tenant settings passed to `rtcap serve --config` (quotas, db_pool, ...)')
      .meta(meta({ secret: 'keys' })),
    database: z
      .boolean()
      .default(true)
      .describe('start Postgres for the server (needed by private channels and Postgres Changes)'),
  })
  .strict();

export const targetSchema = z
  .object({
    url: z
      .string()
      .regex(/^wss?:\/\//, 'must start with ws:// or wss://')
      .refine((u) => !/^wss?:\/\//.test(u) || wsUrlProblem(u) === null, {
        error: (iss) => wsUrlProblem(String(iss.input)) ?? 'is not a valid URL',
      })
      .optional()
      .describe(
        'WebSocket URL of the server, e.g. ws://127.0.0.1:4000/socket/websocket; omit to start the built-in server. `${ENV_VAR}` expanded; an apikey in the query is never printed.',
      )
      .meta(meta({ env: true, secret: 'url' })),
    vsn: z
      .enum(['1.0.0', '2.0.0'])
      .default('1.0.0')
      .describe('serializer: 1.0.0 JSON objects, 2.0.0 JSON arrays (+ binary broadcasts)'),
    binary_broadcast: z
      .boolean()
      .optional()
      .describe(
        'send broadcasts as v2 binary kind-3 frames like current realtime-js; default true on vsn 2.0.0 with the supabase dialect',
      ),
    dialect: z
      .enum(['supabase', 'phoenix'])
      .default('supabase')
      .describe(
        'supabase: Supabase join config and broadcast envelope; phoenix: any Phoenix channels app',
      ),
    topic: z.string().min(1).default('realtime:bench').describe('full topic as sent on the wire'),
    join_payload: z
      .record(z.string(), z.unknown())
      .default({})
      .describe('phoenix dialect: the phx_join payload'),
    push_event: z
      .string()
      .min(1)
      .default('broadcast')
      .describe('phoenix dialect: event name of the pushes rtcap sends'),
    receive_event: z
      .string()
      .min(1)
      .default('broadcast')
      .describe(
        "phoenix dialect: event name of the messages members receive; only frames of this event count as deliveries (a push's reply that carries the pushed payload back does not)",
      ),
    broadcast_event: z
      .string()
      .min(1)
      .default('bench')
      .describe('supabase dialect: the user event inside the broadcast envelope'),
    instance: instanceSchema
      .default({ vcpus: 2, memory_mb: 4096 })
      .describe('basis of server CPU % and memory %'),
    host: z
      .string()
      .optional()
      .describe('Host header override (Supabase resolves the tenant from its first label)'),
    headers: z
      .record(z.string(), z.string())
      .default({})
      .describe(
        'extra HTTP headers on the upgrade request; `${ENV_VAR}` expanded in values; no value is ever printed (a Host entry excepted: it names the tenant)',
      )
      .meta(meta({ env: true, secret: 'values' })),
    params: z
      .record(z.string(), z.string())
      .default({})
      .describe('extra query parameters (e.g. log_level); an apikey or token here is never printed')
      .meta(meta({ secret: 'keys' })),
    auth: authSchema
      .optional()
      .describe(
        'how connections authenticate; the built-in server gets minted tokens automatically',
      )
      .meta(meta({ unquoted: true })),
    tls: tlsSchema
      .optional()
      .describe('wss:// targets: trust (ca), client certificate (cert, key), or insecure'),
    server: builtinServerSchema
      .default({ workers: 1, accept: 'round-robin', config: {}, database: true })
      .describe('the built-in server, when target.url is absent'),
    server_pid: positiveInt
      .optional()
      .describe('pid of a server on this host to sample CPU and memory from'),
    metrics_url: z
      .string()
      .url()
      .optional()
      .describe('Prometheus endpoint of the server to sample CPU and memory from')
      .meta(meta({ unquoted: true })),
    metrics_token: z
      .string()
      .optional()
      .describe('Bearer token for metrics_url. `${ENV_VAR}` expanded. Never printed.')
      .meta(meta({ env: true, secret: 'value' })),
    database_url: z
      .string()
      .optional()
      .describe(
        "PostgreSQL URL of the server's database, for scenarios that insert rows (postgres-changes, mixed) against a server rtcap did not start. `${ENV_VAR}` expanded; the password is never printed.",
      )
      .meta(meta({ env: true, secret: 'url', unquoted: true })),
    join_timeout: duration
      .default(10_000)
      .describe('a join without reply after this long counts as failed'),
    heartbeat_interval: duration.default(25_000).describe('heartbeat period (realtime-js: 25 s)'),
  })
  .strict();
