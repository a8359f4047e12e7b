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

/** One registry's metrics as prom-client serialises them for cluster aggregation. */
export type MetricsJson = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

export class Metrics {
  readonly registry = new Registry();
  /** Set in a worker of `--workers`: returns the instance-wide text. */
  clusterText: (() => Promise<string>) | null = null;

  constructor(server: ServerState) {
    const reg = [this.registry];
    const s = server.stats;
    collectDefaultMetrics({ register: this.registry });
    const counter = (
      name: string,
      help: string,
      read: () => number,
      aggregator: 'sum' | 'max' = 'sum',
    ) =>
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
    const gauge = (
      name: string,
      help: string,
      read: () => number | null,
      aggregator: 'sum' | 'max' = 'sum',
    ) =>
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
    const sumTenants = (f: (t: ServerState['tenants']['all'][number]) => number) => () =>
      server.tenants.all.reduce((n, t) => n + f(t), 0);

    gauge(
      'realtime_connections_connected',
      'open WebSocket connections',
      sumTenants((t) => t.connections.size),
    );
    const perWorker = sumTenants((t) => t.connections.size);
    new Gauge({
      name: 'realtime_worker_connections',
      help: 'open WebSocket connections per server process (worker 0: a single process)',
      labelNames: ['worker'],
      registers: reg,
      collect() {
        this.reset();
        this.set({ worker: String(server.node) }, perWorker());
      },
    });
    gauge(
      'realtime_users_connected',
      'connections that joined at least one channel (max_concurrent_users counts these)',
      sumTenants((t) => t.users.size),
    );
    gauge(
      'realtime_channels_joined',
      'channels currently joined',
      sumTenants((t) => t.channelCount),
    );
    counter('phoenix_connections_total', 'WebSocket upgrades accepted', () => s.connectionsOpened);
    counter(
      'realtime_connections_refused_total',
      'WebSocket upgrades refused (§1.5)',
      () => s.connectionsRefused,
    );
    counter('realtime_channel_joins_total', 'successful channel joins', () => s.joinsOk);
    counter('realtime_channel_join_errors_total', 'refused channel joins', () => s.joinsError);
    counter(
      'realtime_channel_events_total',
      'events counted toward max_events_per_second (inbound + per-recipient deliveries)',
      sumTenants((t) => t.events.total),
    );
    counter(
      'realtime_channel_presence_events_total',
      'presence events counted toward max_presence_events_per_second',
      sumTenants((t) => t.presence.total),
    );
    counter(
      'realtime_channel_db_events_total',
      'Postgres change deliveries (subscription ids)',
      sumTenants((t) => t.dbEvents.total),
    );
    counter(
      'realtime_channel_joins_counted_total',
      'joins counted toward max_joins_per_second',
      sumTenants((t) => t.joins.total),
    );
    counter(
      'realtime_broadcasts_received_total',
      'client and REST broadcasts accepted for fan-out',
      () => s.broadcastsIn,
    );
    counter(
      'realtime_broadcast_deliveries_total',
      'broadcast frames written to sockets',
      () => s.deliveries,
    );
    counter(
      'realtime_presence_diff_deliveries_total',
      'presence_diff frames written to sockets',
      () => s.presenceEvents,
    );
    counter(
      'realtime_postgres_changes_delivered_total',
      'postgres_changes frames written to sockets',
      () => s.changesDelivered,
    );
    counter(
      'realtime_malformed_frames_total',
      'client frames dropped as MalformedWebSocketMessage',
      () => s.malformedFrames,
    );
    counter(
      'realtime_access_token_refreshes_total',
      'access_token pushes with a new, valid token (§3.4)',
      () => s.tokenRefreshes,
    );
    counter(
      'realtime_channel_shutdowns_total',
      'channels closed with a system error (§3.5)',
      () => s.channelShutdowns,
    );
    counter(
      'realtime_socket_frames_written_total',
      'WebSocket frames written to sockets',
      () => s.framesWritten,
    );
    counter(
      'realtime_socket_flushes_total',
      'socket flushes (one writev of the frames queued in one event-loop turn)',
      () => s.socketFlushes,
    );
    counter(
      'realtime_slow_consumers_killed_total',
      'sockets dropped for unsent backlog',
      () => s.slowConsumersKilled,
    );
    gauge(
      'realtime_rate_events_per_second',
      '60 s rolling average of max_events_per_second counting',
      sumTenants((t) => t.events.value),
      'max',
    );
    gauge(
      'realtime_rate_limit_tripped',
      'rate counters currently tripped',
      sumTenants(
        (t) => +t.events.tripped + +t.joins.tripped + +t.presence.tripped + +t.dbEvents.tripped,
      ),
      'max',
    );
    // One database serves every worker, and each worker reports the same figures: 'max', not 'sum'.
    const db = () => (server.db ? server.db.stats() : null);
    gauge(
      'realtime_auth_pool_waiting',
      'authorization checks waiting for a pool connection',
      () => db()?.authPoolWaiting ?? null,
      'max',
    );
    gauge(
      'realtime_auth_errors',
      'authorization errors in the current 30 s window (§6.4; trips at db_pool)',
      () => db()?.authErrors ?? null,
      'max',
    );
    gauge(
      'realtime_replication_poller_lag_ms',
      'age of the oldest undelivered change at the last poll',
      () => db()?.pollerLagMs ?? null,
      'max',
    );
    gauge(
      'realtime_replication_poller_last_poll_ms',
      'duration of the last poll',
      () => db()?.lastPollMs ?? null,
      'max',
    );
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
