/**
 * The profile schema: the single source of the profile's types, defaults and error messages
 * (docs/ARCHITECTURE.md "Code rules"). docs/PROFILE.md is generated from the `.describe()` texts
 * here.
 *
 * Every object is strict: an unknown or mistyped key is an error naming the key and its line.
 */
import { z } from 'zod';
import { DURATION_HINT, formatDurationMs, parseDurationMs } from './duration.js';
import { wsUrlProblem } from './ws-url.js';

export const SCENARIOS = [
  'broadcast-public',
  'broadcast-private',
  'payload-size',
  'join-rate',
  'presence',
  'postgres-changes',
  'write-only',
  'mixed',
] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

/**
 * What the loader and the docs read from a field besides its type, attached with zod `.meta()`.
 * Keeping it on the schema means env expansion, redaction and docs/PROFILE.md cannot disagree
 * about which fields carry credentials. (A type alias, not an interface: `.meta()` takes only
 * types assignable to an index signature.)
 */
export type FieldMeta = {
  /**
   * `${ENV_VAR}` references in the string value (or each value of a string map) are expanded at
   * load time.
   */
  env?: boolean;
  /**
   * How the field may carry a credential, hidden as "***" in result.json and error messages:
   * `value` the whole value; `url` the password and apikey/token query parameters of a URL;
   * `keys` the values under credential-like keys (Authorization, apikey, x-api-key, *secret*, ...).
   */
  secret?: 'value' | 'url' | 'keys';
  /** `duration`: a duration string or seconds, parsed to milliseconds. */
  kind?: 'duration';
};
const meta = (m: FieldMeta): FieldMeta => m;

/** "20s", "1m30s", "500ms", "2h" or a number of seconds. Parsed to milliseconds. */
export const duration = z
  .union([z.number().nonnegative(), z.string()])
  .transform((v, ctx) => {
    const ms = parseDurationMs(v);
    if (ms === null) {
      ctx.addIssue({
        code: 'custom',
        message: `not a duration: ${JSON.stringify(v)} (${DURATION_HINT})`,
      });
      return z.NEVER;
    }
    return ms;
  })
  .meta(meta({ kind: 'duration' }));

const positiveInt = z.number().int().positive();
const nonNegInt = z.number().int().nonnegative();

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
      .describe('phoenix dialect: event name of the messages members receive'),
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
        'extra HTTP headers on the upgrade request; `${ENV_VAR}` expanded in values; Authorization, apikey and x-api-key values are never printed',
      )
      .meta(meta({ env: true, secret: 'keys' })),
    params: z
      .record(z.string(), z.string())
      .default({})
      .describe('extra query parameters (e.g. log_level); an apikey or token here is never printed')
      .meta(meta({ secret: 'keys' })),
    auth: authSchema
      .optional()
      .describe(
        'how connections authenticate; the built-in server gets minted tokens automatically',
      ),
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
      .describe('Prometheus endpoint of the server to sample CPU and memory from'),
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
      .meta(meta({ env: true, secret: 'url' })),
    join_timeout: duration
      .default(10_000)
      .describe('a join without reply after this long counts as failed'),
    heartbeat_interval: duration.default(25_000).describe('heartbeat period (realtime-js: 25 s)'),
  })
  .strict();

/** A step's figures are per whole steady second: a step shorter than one measures nothing. */
export const MIN_STEP_DURATION_MS = 1000;
const stepDuration = duration
  .refine((ms) => ms >= MIN_STEP_DURATION_MS, {
    error: (iss) =>
      `must be at least ${formatDurationMs(MIN_STEP_DURATION_MS)}: a step is measured over whole steady seconds (got ${formatDurationMs(Number(iss.input))})`,
  })
  .meta(meta({ kind: 'duration' }));

export const stepSchema = z
  .object({
    connections: nonNegInt.describe('connections joined during this step (the sender included)'),
    send_rate: z
      .number()
      .nonnegative()
      .default(0)
      .describe('messages sent per second (all senders together)'),
    duration: stepDuration.describe(
      'steady-state duration: sends run this long once the ramp is done (at least 1s)',
    ),
    join_rate: z
      .number()
      .positive()
      .optional()
      .describe('joins per second for this step (default load.join_rate)'),
    payload_bytes: positiveInt
      .optional()
      .describe('payload size for this step (default load.payload_bytes)'),
    label: z.string().optional().describe('name of the step in reports'),
    rooms: positiveInt
      .optional()
      .describe(
        'broadcast-private, presence, mixed: number of topics (rooms); connections are spread over them',
      ),
    members: positiveInt
      .optional()
      .describe(
        'broadcast-private, presence, mixed: members per room; connections = rooms × members when both are given',
      ),
    room_send_rate: z
      .number()
      .nonnegative()
      .optional()
      .describe(
        'broadcast-private, mixed: messages per second per room, spread across its members (replaces send_rate)',
      ),
    update_share: z
      .number()
      .min(0)
      .optional()
      .describe(
        'presence, mixed: share of members sending a presence update each second (0.1 = 10 %)',
      ),
    insert_rate: z
      .number()
      .nonnegative()
      .optional()
      .describe('postgres-changes, mixed: rows inserted per second'),
    filtered: z
      .boolean()
      .optional()
      .describe(
        'postgres-changes, mixed: subscribe with a filter on the room (default: no filter)',
      ),
    components: z
      .array(z.enum(['broadcast', 'presence', 'postgres-changes']))
      .min(1)
      .optional()
      .describe(
        "mixed: the traffic this step carries (default all three); a step with one component is that component's solo run, which later mixed steps compare against",
      ),
  })
  .strict();

export const reconnectSchema = z
  .object({
    enabled: z
      .boolean()
      .default(false)
      .describe('reconnect connections whose join failed or that were dropped'),
    initial_backoff: duration.default(1_000).describe('wait before the first reconnect'),
    max_backoff: duration.default(30_000).describe('longest wait between reconnects'),
    multiplier: z.number().min(1).default(2).describe('backoff growth per attempt'),
    jitter: z
      .number()
      .min(0)
      .max(1)
      .default(0.5)
      .describe(
        'share of the backoff randomised (0.5: backoff × [0.5, 1.5)), so rejected clients do not return together',
      ),
    max_attempts: nonNegInt.default(5).describe('reconnect attempts per connection and step'),
  })
  .strict();

export const privateSchema = z
  .object({
    topic_prefix: z
      .string()
      .default('room-')
      .describe(
        'private topics are realtime:<prefix><n> (the built-in server allows room-*, bench*, slow-*)',
      ),
    role: z.string().default('authenticated').describe('`role` claim of the per-user tokens'),
    sub_prefix: z.string().default('user-').describe('`sub` claim of connection i is <prefix><i>'),
    user_token_file: z
      .string()
      .optional()
      .describe(
        'per-user tokens, one per line, instead of minting them with target.auth.jwt_secret',
      ),
    db_pool: positiveInt
      .optional()
      .describe(
        "the server's authorisation pool size (db_pool), for join-rate's predicted ceiling db_pool ÷ check time; default: target.server.config.db_pool (1) when rtcap starts the built-in server, unknown otherwise",
      ),
  })
  .strict();

export const changesSchema = z
  .object({
    schema: z.string().default('public').describe('schema of the table subscribers listen to'),
    table: z
      .string()
      .default('bench_messages')
      .describe('table subscribers listen to and the loader inserts into'),
    event: z
      .enum(['*', 'INSERT', 'UPDATE', 'DELETE'])
      .default('INSERT')
      .describe('postgres_changes event of the binding'),
    filter_column: z
      .string()
      .default('room_id')
      .describe('column of the filter when a step is `filtered` (room_id=eq.<room>)'),
    insert_sql: z
      .string()
      .optional()
      .describe(
        'the loader\'s INSERT: $1 room id, $2 body ("stream:seq"), $3 scheduled time (epoch ms); default inserts (room_id, body, sent_at) into the table',
      ),
    claims: z
      .record(z.string(), z.unknown())
      .default({ rooms: '*' })
      .describe(
        'extra claims of the subscribers\' tokens (the built-in bench table shows rooms listed in `rooms`, "*" for all)',
      ),
  })
  .strict();

export const analysisSchema = z
  .object({
    cpu_safe_pct: z
      .number()
      .positive()
      .max(100)
      .default(70)
      .describe('server CPU safe line of the capacity table (seed 002: 70 %)'),
    mem_safe_pct: z
      .number()
      .positive()
      .max(100)
      .default(85)
      .describe('server memory safe line of the capacity table'),
    wanted_join_rate_per_s: z
      .number()
      .positive()
      .optional()
      .describe('join rate to size db_pool for in the configuration advice'),
    join_headroom: z
      .number()
      .positive()
      .max(1)
      .default(0.5)
      .describe(
        'share of the measured join ceiling recommended as the red line (seed 002: 60 of 125/s)',
      ),
    presence_quota_per_s: z
      .number()
      .positive()
      .optional()
      .describe(
        "the tenant's max_presence_events_per_second, for the §5 quota arithmetic of presence steps; default: read from target.server.config when rtcap starts the built-in server",
      ),
  })
  .strict();

/**
 * Step fields a sweep may vary; `subscribers` sets the step's connections, `rooms` the topics
 * (connections = rooms × members when members are given), `insert_rate` the rows per second,
 * `room_send_rate` each room's messages per second.
 */
export const SWEEP_DRIVERS = [
  'connections',
  'send_rate',
  'join_rate',
  'payload_bytes',
  'members',
  'update_share',
  'subscribers',
  'rooms',
  'insert_rate',
  'room_send_rate',
] as const;
export type SweepDriver = (typeof SWEEP_DRIVERS)[number];

/**
 * The check before each search step that the server is back to the baseline of the first
 * stable step (run/recovery-probe): a few broadcasts on a probe connection of its own.
 */
export const recoverySchema = z
  .object({
    probe: z
      .boolean()
      .default(true)
      .describe(
        'probe the server before each search step and wait (bounded) until it is back to its baseline',
      ),
    messages: positiveInt
      .max(50)
      .default(5)
      .describe('broadcasts per probe, each sent once the previous one came back'),
    max_wait: duration
      .default(30_000)
      .describe(
        'longest wait for the server to recover; a step run after it is marked as measured while recovering and is never the knee',
      ),
    latency_factor: z
      .number()
      .min(1)
      .default(3)
      .describe(
        'recovered: probe median latency ≤ baseline median × this + latency_margin_ms, every probe message delivered',
      ),
    latency_margin_ms: z
      .number()
      .nonnegative()
      .default(20)
      .describe('added to baseline × latency_factor, so a 1 ms baseline does not demand 3 ms'),
  })
  .strict();

export const sweepFields = {
  driver: z
    .enum(SWEEP_DRIVERS)
    .describe(
      "the step field the sweep varies; every other field comes from load.steps.0 (subscribers: the step's connections)",
    ),
  values: z
    .array(z.number().positive())
    .min(1)
    .optional()
    .describe(
      'explicit driver values, run in this order (no search); without it the sweep searches',
    ),
  start: z
    .number()
    .positive()
    .optional()
    .describe('search: first value (default: the value in load.steps.0)'),
  max: z
    .number()
    .positive()
    .optional()
    .describe(
      'search: the driver never goes above this (required for a search: it bounds the run and sizes the generator)',
    ),
  factor: z
    .number()
    .gt(1)
    .default(2)
    .describe('search: growth factor between steps until the growth stops (geometric growth)'),
  resolution: z
    .number()
    .positive()
    .max(1)
    .default(0.05)
    .describe(
      'search: bisection stops once first broken − last stable ≤ resolution × first broken',
    ),
  stop_after_broken: positiveInt
    .default(2)
    .describe('K: growth (and an explicit list) stops after this many consecutive broken steps'),
  generator_bound_retries: nonNegInt
    .default(1)
    .describe(
      'a generator-bound step is run again this many times before the sweep stops on it (the generator, not the server, is then the limit)',
    ),
  max_steps: positiveInt
    .default(20)
    .describe('at most this many steps in all (a resumed sweep counts the steps already done)'),
  budget: duration
    .refine((ms) => ms > 0, 'must be longer than 0')
    .optional()
    .describe(
      'wall time the sweep may take ("4m"); no step starts that would end past it, and a search stopped so reads "≥ X, budget spent"',
    ),
  min_samples: nonNegInt
    .default(1000)
    .describe(
      'search: the percentile a step is judged on (first-receipt p95, join p95) must rest on at least this many samples; a step short of it is run again longer (up to max_duration), 0: never',
    ),
  max_duration: duration
    .optional()
    .describe(
      'search: the longest a step may be lengthened to for min_samples (default: 4 × load.steps.0 duration)',
    ),
  recovery: recoverySchema
    .default(() => recoverySchema.parse({}))
    .describe('search: before each step, wait until the server is back to its baseline'),
};

/** A sweep's fields with their limits and no defaults: a campaign entry's `search:` overrides. */
export const sweepOverrideSchema = z
  .object({
    ...Object.fromEntries(
      Object.entries(sweepFields).map(([k, v]) => [k, unwrapDefault(v).optional()]),
    ),
  } as {
    [K in keyof typeof sweepFields]: z.ZodOptional<
      z.ZodType<z.output<(typeof sweepFields)[K]>, z.input<(typeof sweepFields)[K]>>
    >;
  })
  .strict();

function unwrapDefault(t: z.ZodType): z.ZodType {
  return t instanceof z.ZodDefault ? (t.unwrap() as z.ZodType) : t;
}

export const sweepSchema = z
  .object(sweepFields)
  .strict()
  .superRefine((s, ctx) => {
    if (!s.values && s.max === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['max'],
        message: 'required for a search (or list explicit `values`)',
      });
    if (s.start !== undefined && s.max !== undefined && s.start > s.max)
      ctx.addIssue({
        code: 'custom',
        path: ['start'],
        message: `start ${s.start} is above max ${s.max}`,
      });
  });

/** Tenant quotas `rtcap quotas` checks (docs/PROTOCOL.md §8.2), with how the target counts. */
export const quotasSchema = z
  .object({
    max_concurrent_users: positiveInt
      .optional()
      .describe('transports joined to at least one channel; refusal "Too many connected users"'),
    max_joins_per_second: z
      .number()
      .positive()
      .optional()
      .describe(
        'channel joins per second (rate window); refusal "Too many joins per second" (join refused and socket closed, or HTTP 429)',
      ),
    max_events_per_second: z
      .number()
      .positive()
      .optional()
      .describe(
        'broadcast events per second: +1 per inbound broadcast, +1 per delivery; receiving channels closed with "Too many messages per second"',
      ),
    max_presence_events_per_second: z
      .number()
      .positive()
      .optional()
      .describe(
        'presence events per second: track, presence_state and presence_diff per recipient; channel closed with "Too many presence messages per second"',
      ),
    max_channels_per_client: positiveInt
      .optional()
      .describe(
        'channels joined on one socket; join refused with "ChannelRateLimitReached: Too many channels"',
      ),
    max_payload_size_in_kb: z
      .number()
      .positive()
      .optional()
      .describe(
        'broadcast payload size; a larger one is dropped, with ack answered "payload_size_exceeded" (limit: kb × 1000 + 500 bytes of JSON)',
      ),
    below: z
      .number()
      .positive()
      .lt(1)
      .default(0.8)
      .describe('"just below": this share of the declared value; no rejection allowed'),
    above: z
      .number()
      .gt(1)
      .default(1.25)
      .describe(
        '"just above": this multiple of the declared value; rejections with the expected reason required',
      ),
    tolerance: z
      .number()
      .positive()
      .max(1)
      .default(0.1)
      .describe('the measured onset must be within this share of the declared value'),
    min_offered_ratio: z
      .number()
      .positive()
      .max(1)
      .default(0.95)
      .describe(
        'a phase that offered less than this share of its target load shows nothing about that load: without a refusal to the contrary the quota is inconclusive, never pass',
      ),
    rate_tick: duration
      .default(5_000)
      .describe(
        "the target's rate counter tick (Supabase: 5 s); rtcap passes it to the built-in server it starts",
      ),
    rate_buckets: positiveInt
      .default(12)
      .describe('buckets in the rate window (Supabase: 12, a 60 s window with 5 s ticks)'),
    error_backoff: duration
      .default(5_000)
      .describe(
        "how long the target delays a refused join's reply (Supabase: 5 s; connects 2 s); phases wait this long for late refusals",
      ),
  })
  .strict();

export const loadSchema = z
  .object({
    join_rate: z
      .number()
      .positive()
      .default(50)
      .describe('connections opened and joined per second (seed 002: 50/s)'),
    self: z.boolean().default(false).describe('does the sender receive its own messages'),
    ack: z
      .boolean()
      .default(false)
      .describe('ask the server to acknowledge every broadcast (supabase dialect)'),
    ack_timeout: duration
      .default(10_000)
      .describe(
        'an acked send with no answer this long after it was written counts as unacked (a step with any is not stable); acks still pending when the step ends count the same',
      ),
    payload_bytes: positiveInt
      .default(64)
      .describe('size of each message payload in bytes, stamp included'),
    warmup: duration.default(0).describe('time after the ramp before measuring'),
    drain: duration
      .default(10_000)
      .describe('after the last send, wait up to this long for messages in flight'),
    settle: duration
      .default(1_000)
      .describe('a quiet period that ends the drain early once everything expected arrived'),
    steps: z
      .array(stepSchema)
      .min(1)
      .describe('the load levels, run in order on the same connections'),
    workers: z
      .union([positiveInt, z.literal('auto')])
      .default('auto')
      .describe('generator processes; auto: one per 15,000 connections'),
    source_addresses: z
      .array(z.string())
      .optional()
      .describe('local addresses to spread connections over; auto on loopback targets'),
    late_threshold: duration
      .default(5)
      .describe('a send or join this much later than scheduled counts as late'),
    reconnect: reconnectSchema
      .optional()
      .describe(
        'reconnect with backoff and jitter after a failed join or a drop (join-rate scenarios)',
      ),
  })
  .strict();

export const sloSchema = z
  .object({
    p95_ms: z
      .number()
      .positive()
      .default(200)
      .describe('a step whose first-receive p95 exceeds this is degraded'),
    p99_ms: z.number().positive().optional().describe('optional p99 bound for the same verdict'),
    delivery_rate: z
      .number()
      .min(0)
      .max(1)
      .default(1)
      .describe('a step delivering less than this is broken'),
    join_p95_ms: z
      .number()
      .positive()
      .default(2_000)
      .describe(
        'a step whose joins took longer than this at p95 (scheduled join time → ok reply) is degraded',
      ),
    join_success: z
      .number()
      .min(0)
      .max(1)
      .default(1)
      .describe(
        "share of a step's connections that must join (failed or rejected ones count against it); below it the step is broken. The seed calls 15,998 of 16,000 stable: 0.9995",
      ),
  })
  .strict();

export const generatorLimitsSchema = z
  .object({
    min_offered_ratio: z
      .number()
      .min(0)
      .max(1)
      .default(0.99)
      .describe('below this share of the scheduled load the step is generator-bound'),
    max_event_loop_lag_p99_ms: z
      .number()
      .positive()
      .default(50)
      .describe('event-loop lag p99 above this makes the step generator-bound'),
    max_cpu_pct: z
      .number()
      .positive()
      .default(90)
      .describe('generator CPU (one core = 100 %) above this makes the step generator-bound'),
  })
  .strict();

/** A threshold: its expression, or k6's object form that can stop the run when it fails. */
export const thresholdEntrySchema = z.union([
  z.string().min(1),
  z
    .object({
      threshold: z.string().min(1).describe('the expression, e.g. "p95_ms < 200"'),
      abort_on_fail: z
        .boolean()
        .default(false)
        .describe(
          'stop the run (or campaign) as soon as a finished step fails it; the result so far is kept and the run exits 99',
        ),
    })
    .strict(),
]);

export const profileSchema = z
  .object({
    name: z.string().min(1).describe('name of the run, used in the run id'),
    description: z.string().optional().describe('free text about the run, copied into the report'),
    scenario: z.enum(SCENARIOS).describe('what to measure; see README "Scenarios"'),
    target: targetSchema
      .default(() => targetSchema.parse({}))
      .describe('the server under test and how to talk to it'),
    load: loadSchema.describe('the load to offer: join rate, payload and the steps'),
    slo: sloSchema
      .default(() => sloSchema.parse({}))
      .describe("thresholds that decide each step's verdict"),
    generator: generatorLimitsSchema
      .default({ min_offered_ratio: 0.99, max_event_loop_lag_p99_ms: 50, max_cpu_pct: 90 })
      .describe('limits past which the load generator, not the server, is the bottleneck'),
    private: privateSchema
      .default(() => privateSchema.parse({}))
      .describe('private channels (broadcast-private, join-rate): topics and per-user tokens'),
    changes: changesSchema
      .default(() => changesSchema.parse({}))
      .describe('Postgres Changes (postgres-changes, mixed): table, binding and loader'),
    analysis: analysisSchema
      .default(() => analysisSchema.parse({}))
      .describe('safe lines and targets of the capacity table and configuration advice'),
    sweep: sweepSchema
      .optional()
      .describe(
        '`rtcap sweep`: the driver to vary over load.steps.0, explicit values or a search (geometric growth, then bisection to the knee)',
      ),
    thresholds: z
      .array(thresholdEntrySchema)
      .default([])
      .describe(
        'pass/fail gates on every step, e.g. "p95_ms < 200", "delivery_rate >= 0.999", "errors == 0"; narrowed to steps or scenarios ("p95_ms{step:3} < 200", "p95_ms{step:"20k"} < 200", "p95_ms{scenario:presence} < 300") or on a capacity row ("capacity.public_connections >= 18000"); a failure exits 99 (a sweep checks the steps up to its knee). The entry { threshold: "p95_ms < 500", abort_on_fail: true } also stops the run at the first finished step that fails it, keeping the result so far',
      ),
    quotas: quotasSchema
      .optional()
      .describe(
        '`rtcap quotas`: tenant quotas to check below, above and back below the declared value',
      ),
  })
  .strict();

export type Profile = z.output<typeof profileSchema>;
export type ProfileInput = z.input<typeof profileSchema>;
export type Step = z.output<typeof stepSchema>;
export type Target = z.output<typeof targetSchema>;
export type Load = z.output<typeof loadSchema>;
export type Reconnect = z.output<typeof reconnectSchema>;
export type Sweep = z.output<typeof sweepSchema>;
export type Quotas = z.output<typeof quotasSchema>;
export type ThresholdEntry = z.output<typeof thresholdEntrySchema>;
