/**
 * `/metrics` in Prometheus text (docs/PROTOCOL.md §9). Every value is read from
 * the server's plain counters at scrape time, so the hot path never calls prom-client.
 * With `--workers` the primary gathers each worker's registry as JSON and sums it
 * (prom-client's AggregatorRegistry.aggregate), so figures cover the whole instance.
 *
 * Unlike Supabase's endpoint, no Bearer token is required: the built-in server is a local
 * benchmark target.
 */
import type { ServerResponse } from 'node:http';
import { AggregatorRegistry, collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { ServerState } from './server-state.js';
import type { Stats } from './stats.js';

/** One registry's metrics as prom-client serialises them for cluster aggregation. */
export type MetricsJson = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

type Aggregator = 'sum' | 'max';
type TenantView = ServerState['tenants']['all'][number];

/** A series' name, help text and how a cluster's workers add up (default 'sum'). */
interface Series {
  name: string;
  help: string;
  aggregator?: Aggregator;
}

/** A counter whose value is read from the server's plain counters at scrape time. */
function readCounter(reg: Registry[], series: Series, read: () => number): void {
  const { name, help, aggregator = 'sum' } = series;
  new Counter({
    name,
    help,
    registers: reg,
    aggregator,
    collect() {
      this.reset();
      this.inc(read());
    },
  });
}

/** A gauge read at scrape time; null (no database) is exposed as NaN. */
function readGauge(reg: Registry[], series: Series, read: () => number | null): void {
  const { name, help, aggregator = 'sum' } = series;
  new Gauge({
    name,
    help,
    registers: reg,
    aggregator,
    collect() {
      const v = read();
      this.set(v ?? Number.NaN);
    },
  });
}

/** A figure summed over the server's tenants, read at scrape time. */
function sumTenants(server: ServerState, f: (t: TenantView) => number): () => number {
  return () => server.tenants.all.reduce((n, t) => n + f(t), 0);
}

/** Counters of the server's own Stats: name, help, which Stats field. */
type StatsCounter = [name: string, help: string, field: keyof Stats];

/** The sampling period of the nodejs_eventloop_lag_* series, ms. */
export const NODE_METRICS_LAG_PERIOD_MS = 100;

/**
 * prom-client's default Node metrics, with their event-loop delay sampled every 100 ms instead of
 * prom-client's 10 ms: the 10 ms timer woke every idle server process ~100 times a second, and
 * an idle `rtcap serve --workers 34` (the 500,000-connection plan) spent a fifth of a core on
 * them (8.7 % of a core with the 100 ms period). The lag series stay, sampled ten times a second
 * instead of a hundred.
 */
export function defaultNodeMetrics(registry: Registry): void {
  collectDefaultMetrics({
    register: registry,
    eventLoopMonitoringPrecision: NODE_METRICS_LAG_PERIOD_MS,
  });
}

const UPGRADE_AND_JOIN_COUNTERS: StatsCounter[] = [
  ['phoenix_connections_total', 'WebSocket upgrades accepted', 'connectionsOpened'],
  [
    'realtime_connections_refused_total',
    'WebSocket upgrades refused (docs/PROTOCOL.md §1.5)',
    'connectionsRefused',
  ],
  ['realtime_channel_joins_total', 'successful channel joins', 'joinsOk'],
  ['realtime_channel_join_errors_total', 'refused channel joins', 'joinsError'],
];

const TRAFFIC_COUNTERS: StatsCounter[] = [
  [
    'realtime_broadcasts_received_total',
    'client and REST broadcasts accepted for fan-out',
    'broadcastsIn',
  ],
  ['realtime_broadcast_deliveries_total', 'broadcast frames written to sockets', 'deliveries'],
  [
    'realtime_presence_diff_deliveries_total',
    'presence_diff frames written to sockets',
    'presenceEvents',
  ],
  [
    'realtime_postgres_changes_delivered_total',
    'postgres_changes frames written to sockets',
    'changesDelivered',
  ],
  [
    'realtime_malformed_frames_total',
    'client frames dropped as MalformedWebSocketMessage',
    'malformedFrames',
  ],
  [
    'realtime_access_token_refreshes_total',
    'access_token pushes with a new, valid token (docs/PROTOCOL.md §3.4)',
    'tokenRefreshes',
  ],
  [
    'realtime_channel_shutdowns_total',
    'channels closed with a system error (docs/PROTOCOL.md §3.5)',
    'channelShutdowns',
  ],
  ['realtime_socket_frames_written_total', 'WebSocket frames written to sockets', 'framesWritten'],
  [
    'realtime_socket_flushes_total',
    'socket flushes (one writev of the frames queued in one event-loop turn)',
    'socketFlushes',
  ],
  [
    'realtime_slow_consumers_killed_total',
    'sockets dropped for unsent backlog',
    'slowConsumersKilled',
  ],
];

function statsCounters(reg: Registry[], stats: Stats, list: StatsCounter[]): void {
  for (const [name, help, field] of list) readCounter(reg, { name, help }, () => stats[field]);
}

/** Open connections (in all, and this process's under its worker label), users, channels. */
function membershipGauges(reg: Registry[], server: ServerState): void {
  const connections = sumTenants(server, (t) => t.connections.size);
  readGauge(
    reg,
    { name: 'realtime_connections_connected', help: 'open WebSocket connections' },
    connections,
  );
  new Gauge({
    name: 'realtime_worker_connections',
    help: 'open WebSocket connections per server process (worker 0: a single process)',
    labelNames: ['worker'],
    registers: reg,
    collect() {
      this.reset();
      this.set({ worker: String(server.node) }, connections());
    },
  });
  readGauge(
    reg,
    {
      name: 'realtime_users_connected',
      help: 'connections that joined at least one channel (max_concurrent_users counts these)',
    },
    sumTenants(server, (t) => t.users.size),
  );
  readGauge(
    reg,
    { name: 'realtime_channels_joined', help: 'channels currently joined' },
    sumTenants(server, (t) => t.channelCount),
  );
}

/** What the tenants' rate counters counted, and their state (docs/PROTOCOL.md §8). */
function quotaSeries(reg: Registry[], server: ServerState): void {
  const total = (name: string, help: string, f: (t: TenantView) => number) =>
    readCounter(reg, { name, help }, sumTenants(server, f));
  total(
    'realtime_channel_events_total',
    'events counted toward max_events_per_second (inbound + per-recipient deliveries)',
    (t) => t.events.total,
  );
  total(
    'realtime_channel_presence_events_total',
    'presence events counted toward max_presence_events_per_second',
    (t) => t.presence.total,
  );
  total(
    'realtime_channel_db_events_total',
    'Postgres change deliveries (subscription ids)',
    (t) => t.dbEvents.total,
  );
  total(
    'realtime_channel_joins_counted_total',
    'joins counted toward max_joins_per_second',
    (t) => t.joins.total,
  );
}

function rateGauges(reg: Registry[], server: ServerState): void {
  readGauge(
    reg,
    {
      name: 'realtime_rate_events_per_second',
      help: '60 s rolling average of max_events_per_second counting',
      aggregator: 'max',
    },
    sumTenants(server, (t) => t.events.value),
  );
  readGauge(
    reg,
    {
      name: 'realtime_rate_limit_tripped',
      help: 'rate counters currently tripped',
      aggregator: 'max',
    },
    sumTenants(
      server,
      (t) => +t.events.tripped + +t.joins.tripped + +t.presence.tripped + +t.dbEvents.tripped,
    ),
  );
}

/**
 * The database's pool and poller figures. One database serves every worker, and each worker
 * reports the same figures: 'max', not 'sum'.
 */
function databaseGauges(reg: Registry[], server: ServerState): void {
  const db = () => (server.db ? server.db.stats() : null);
  const gauge = (name: string, help: string, read: () => number | null | undefined) =>
    readGauge(reg, { name, help, aggregator: 'max' }, () => read() ?? null);
  gauge(
    'realtime_auth_pool_waiting',
    'authorization checks waiting for a pool connection',
    () => db()?.authPoolWaiting,
  );
  gauge(
    'realtime_auth_errors',
    'authorization errors in the current 30 s window (docs/PROTOCOL.md §6.4; trips at db_pool)',
    () => db()?.authErrors,
  );
  gauge(
    'realtime_replication_poller_lag_ms',
    'age of the oldest undelivered change at the last poll',
    () => db()?.pollerLagMs,
  );
  gauge(
    'realtime_replication_poller_last_poll_ms',
    'duration of the last poll',
    () => db()?.lastPollMs,
  );
}

export class Metrics {
  readonly registry = new Registry();
  /** Set in a worker of `--workers`: returns the instance-wide text. */
  clusterText: (() => Promise<string>) | null = null;

  /** Registers every series; their order is the order of /metrics' text. */
  constructor(server: ServerState) {
    const reg = [this.registry];
    defaultNodeMetrics(this.registry);
    membershipGauges(reg, server);
    statsCounters(reg, server.stats, UPGRADE_AND_JOIN_COUNTERS);
    quotaSeries(reg, server);
    statsCounters(reg, server.stats, TRAFFIC_COUNTERS);
    rateGauges(reg, server);
    databaseGauges(reg, server);
  }

  json(): Promise<MetricsJson> {
    return this.registry.getMetricsAsJSON();
  }

  static aggregate(parts: MetricsJson[]): Promise<string> {
    return AggregatorRegistry.aggregate(parts).metrics();
  }

  respond(res: ServerResponse): void {
    const text = this.clusterText ? this.clusterText() : this.registry.metrics();
    text.then(
      (body) => res.writeHead(200, { 'content-type': this.registry.contentType }).end(body),
      (e: Error) =>
        res
          .writeHead(500, { 'content-type': 'text/plain' })
          .end(`metrics unavailable: ${e.message}\n`),
    );
  }
}
