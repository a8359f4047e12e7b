/**
 * Live metrics of a running benchmark (`--metrics-port`): the coordinator's per-second
 * timeline and its step results as prom-client metrics, so a long run can be watched in
 * Prometheus/Grafana (docs/grafana-rtcap.json). Every figure comes from the same merged
 * per-second lines as timeseries.ndjson, so the live view and the result agree:
 *
 *  - counters (`*_total`) add each second's count (joins, sends, acks, deliveries,
 *    disconnects, errors by reason); losses add each finished step's `messages.lost`, since a
 *    loss is only known once the step's ledgers are merged;
 *  - gauges hold the last second (connections by state, step, phase, CPU);
 *  - `rtcap_delivery_latency_seconds` is a cumulative histogram of every delivery's latency
 *    (stamped send time → receipt), filled from the per-second HDR histograms.
 *
 * Two registries carry the same figures: Prometheus text (0.0.4) and OpenMetrics, chosen by
 * the scraper's Accept header (prom-client renames counters in place for OpenMetrics, so one
 * registry cannot serve both).
 */
import { Counter, Gauge, Registry, type OpenMetricsContentType } from 'prom-client';
import { compactHistogram, mergeEncoded } from '../measure/histogram.js';
import type { StepResult } from '../result/result.js';
import type { TimeseriesPoint } from '../result/timeseries-point.js';
import type { RunObserver } from './runner.js';
import type { SecondRecord } from '../figures/timeline.js';
import { addCounts } from '../util/counts.js';

/** Upper bounds of the latency buckets, in seconds (1 ms … 10 s). */
export const LATENCY_BUCKETS_S = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
] as const;
const LATENCY_BUCKETS_MS = LATENCY_BUCKETS_S.map((s) => s * 1000);
const PHASES: TimeseriesPoint['phase'][] = ['ramp', 'warmup', 'steady', 'drain'];

/**
 * A cumulative histogram with counts known per bucket (prom-client's Histogram only takes single
 * observations).
 */
class BucketHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  /** Per bucket of LATENCY_BUCKETS_S, then +Inf: counts in that bucket only. */
  private readonly counts = new Array<number>(LATENCY_BUCKETS_S.length + 1).fill(0);
  private sumS = 0;

  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  add(counts: readonly number[], sumS: number): void {
    for (let i = 0; i < this.counts.length; i++) this.counts[i] += counts[i] ?? 0;
    this.sumS += sumS;
  }

  get() {
    const values: Array<{
      labels: Record<string, string | number>;
      value: number;
      metricName: string;
    }> = [];
    let cumulative = 0;
    for (let i = 0; i < this.counts.length; i++) {
      cumulative += this.counts[i];
      values.push({
        labels: { le: i < LATENCY_BUCKETS_S.length ? LATENCY_BUCKETS_S[i] : '+Inf' },
        value: cumulative,
        metricName: `${this.name}_bucket`,
      });
    }
    values.push({ labels: {}, value: this.sumS, metricName: `${this.name}_sum` });
    values.push({ labels: {}, value: cumulative, metricName: `${this.name}_count` });
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values,
    };
  }
}

/** The metric objects of one registry. */
function metricsOf(registry: Registry) {
  const registers = [registry];
  const counter = (name: string, help: string, labelNames: string[] = []) =>
    new Counter({ name, help, labelNames, registers });
  const gauge = (name: string, help: string, labelNames: string[] = []) =>
    new Gauge({ name, help, labelNames, registers });
  const latency = new BucketHistogram(
    'rtcap_delivery_latency_seconds',
    'Latency of every delivery, stamped send time to receipt (HDR per second, summed).',
  );
  registry.registerMetric(latency as never);
  return {
    connections: gauge(
      'rtcap_connections',
      'Connections at the end of the last second, by state: open (WebSocket open) and joined (channel joined).',
      ['state'],
    ),
    joins: counter('rtcap_joins_total', 'Channel joins that succeeded.'),
    sends: counter('rtcap_sends_total', 'Messages sent by the generator (written to a socket).'),
    acks: counter('rtcap_acks_total', 'Sends the server acknowledged (load.ack), by ack time.'),
    deliveries: counter(
      'rtcap_deliveries_total',
      'Deliveries received (first and later receipts of a message by a member; no duplicates).',
    ),
    losses: counter(
      'rtcap_losses_total',
      "Expected deliveries never received, added when a step's ledgers are merged (end of each step).",
    ),
    disconnects: counter(
      'rtcap_disconnects_total',
      'Connections closed by the server or the network.',
    ),
    errors: counter(
      'rtcap_errors_total',
      'Errors by reason (verbatim server reasons, classified network errors).',
      ['reason'],
    ),
    step: gauge('rtcap_step', 'Current step, from 1.'),
    stepTarget: gauge('rtcap_step_target_connections', 'Connections the current step asks for.'),
    phase: gauge('rtcap_phase', '1 for the phase the current step is in.', ['phase']),
    stepsDone: counter('rtcap_steps_completed_total', 'Steps finished, by verdict.', ['verdict']),
    generatorCpu: gauge(
      'rtcap_generator_cpu_percent',
      'Busiest generator process CPU, percent of one core.',
    ),
    generatorLag: gauge(
      'rtcap_generator_event_loop_lag_p99_seconds',
      'Highest generator event-loop delay p99 of the last second.',
    ),
    serverCpu: gauge(
      'rtcap_server_cpu_percent',
      'Server CPU, percent of the instance (null seconds leave it unchanged).',
    ),
    serverRss: gauge('rtcap_server_rss_bytes', 'Server resident memory.'),
    latency,
  };
}

type MetricSet = ReturnType<typeof metricsOf>;

export class LiveMetrics implements RunObserver {
  readonly prometheus = new Registry();
  readonly openMetrics = new Registry<OpenMetricsContentType>();
  private readonly sets: MetricSet[];

  constructor() {
    this.openMetrics.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    this.sets = [metricsOf(this.prometheus), metricsOf(this.openMetrics as unknown as Registry)];
    for (const m of this.sets) {
      for (const state of ['open', 'joined']) m.connections.set({ state }, 0);
      for (const c of [m.joins, m.sends, m.acks, m.deliveries, m.losses, m.disconnects]) c.inc(0);
    }
  }

  /** One merged second of the timeline (the runner's per-second callback). */
  second(rec: SecondRecord, stepTargetConnections?: number): void {
    const p = rec.point;
    const hist = mergeEncoded(rec.workers.map((w) => w.histogram));
    const buckets = hist.totalCount > 0 ? compactHistogram(hist, LATENCY_BUCKETS_MS).counts : [];
    const sumS = hist.totalCount > 0 ? (hist.mean * hist.totalCount) / 1e6 : 0;
    const reasons = new Map<string, number>();
    for (const w of rec.workers) addCounts(reasons, w.errorReasons);
    for (const m of this.sets) {
      m.connections.set({ state: 'open' }, p.connections_open);
      m.connections.set({ state: 'joined' }, p.joined);
      m.joins.inc(p.joins_per_s);
      m.sends.inc(p.sent_per_s);
      m.acks.inc(p.acked_per_s ?? 0);
      m.deliveries.inc(p.delivered_per_s);
      m.disconnects.inc(p.disconnects);
      for (const [reason, n] of reasons) m.errors.inc({ reason }, n);
      m.step.set(p.step);
      if (stepTargetConnections !== undefined) m.stepTarget.set(stepTargetConnections);
      for (const phase of PHASES) m.phase.set({ phase }, phase === p.phase ? 1 : 0);
      if (p.generator_cpu_pct !== null) m.generatorCpu.set(p.generator_cpu_pct);
      if (p.generator_lag_p99_ms !== null) m.generatorLag.set(p.generator_lag_p99_ms / 1000);
      if (p.server_cpu_pct !== null) m.serverCpu.set(p.server_cpu_pct);
      if (p.server_rss_mb !== null) m.serverRss.set(p.server_rss_mb * 1048576);
      if (buckets.length) m.latency.add(buckets, sumS);
    }
  }

  /** A finished step: its losses (known only now) and verdict. */
  step(step: StepResult): void {
    for (const m of this.sets) {
      m.losses.inc(step.messages.lost);
      m.stepsDone.inc({ verdict: step.verdict }, 1);
    }
  }

  /** The exposition text for a scraper's Accept header, with its content type. */
  async render(accept: string | undefined): Promise<{ contentType: string; body: string }> {
    const registry: Registry<OpenMetricsContentType> | Registry = accept?.includes(
      'application/openmetrics-text',
    )
      ? this.openMetrics
      : this.prometheus;
    return { contentType: registry.contentType, body: await registry.metrics() };
  }
}
