/**
 * One second of the timeline as a point (timeseries.ndjson's line) from the generator lines
 * counted in it, the processes' gauges and the server sample: the live timeline writes it
 * (figures/timeline) and the seconds the step figures read are made of it too
 * (figures/own-seconds).
 */
import { isSpreadPiece } from './spread-line.js';
import type { SecondStats } from '../generator/ipc.js';
import type { Percentiles } from '../result/result.js';
import type { ResourceSample } from '../monitor/types.js';
import type { TimeseriesPoint } from '../result/timeseries-point.js';
import { TRAFFIC_KINDS } from '../scenarios/types.js';
import { r1 } from '../util/round.js';
import { sumOf } from '../util/sum.js';
import { GENERATOR_ERRNO } from '../model/verdict-generator.js';

export interface SecondRecord {
  point: TimeseriesPoint;
  workers: SecondStats[];
  server: ResourceSample | null;
  /**
   * The 60 s sliding mean of deliveries per second of each traffic kind (TRAFFIC_KINDS order), as
   * `point.delivered_per_s_60s` is of all.
   */
  deliveredPerS60sByKind?: number[];
}

/** The gauges of a process's newest line: what a second it has no line in counts for it. */
export interface Gauges {
  t: number;
  open: number;
  joined: number;
  acksPending: number;
}

export function gaugesOf(s: SecondStats): Gauges {
  return { t: s.t, open: s.open, joined: s.joined, acksPending: s.acksPending ?? 0 };
}

/**
 * A gauge of the second (open, joined, acks pending) over every process: each process's own line
 * of it, or, for a process without one (late or skipped), the gauges it carried.
 */
export function gaugeTotals(
  own: readonly SecondStats[],
  carried: ReadonlyMap<number, Gauges>,
): Omit<Gauges, 't'> {
  const gauges = [...own.map(gaugesOf), ...carried.values()];
  return {
    open: sumOf(gauges, (g) => g.open),
    joined: sumOf(gauges, (g) => g.joined),
    acksPending: sumOf(gauges, (g) => g.acksPending),
  };
}

/**
 * One second's deliveries of each kind over every process (a line without the split counts all its
 * deliveries for every kind).
 */
export function deliveredByKind(list: readonly SecondStats[]): number[] {
  return TRAFFIC_KINDS.map((_, ki) =>
    sumOf(list, (w) => (w.receivedByKind ? (w.receivedByKind[ki] ?? 0) : w.received)),
  );
}

/**
 * The second's connections that failed on an OS limit of a generator process, by errno (its
 * error reasons name it: client/classify), as the point's `generator_os_errors`; nothing when none.
 */
export function osErrorsField(list: readonly SecondStats[]): {
  generator_os_errors?: Record<string, number>;
} {
  const out: Record<string, number> = {};
  for (const w of list) {
    for (const [reason, n] of Object.entries(w.errorReasons ?? {})) {
      const m = GENERATOR_ERRNO.exec(reason);
      if (m && n > 0) out[m[1]] = (out[m[1]] ?? 0) + n;
    }
  }
  return Object.keys(out).length ? { generator_os_errors: out } : {};
}

/** What a second's point is made of besides its lines. */
export interface PointInputs {
  t: number;
  /** Step (from 0) and phase when the second's first line came in. */
  ctx: { step: number; phase: TimeseriesPoint['phase'] };
  gauges: Omit<Gauges, 't'>;
  server: ResourceSample | null;
  vcpus: number;
  latency: Pick<Percentiles, 'p50' | 'p95' | 'p99'>;
  /** The 60 s sliding means of sends and deliveries per second, rounded. */
  means: { sent: number; delivered: number };
  /** Lines of earlier seconds counted in this one. */
  lateLines: number;
}

/** The point of a second whose counts are those of `lines`. */
export function secondPoint(x: PointInputs, lines: readonly SecondStats[]): TimeseriesPoint {
  const sum = (f: (s: SecondStats) => number) => sumOf(lines, f);
  const server = x.server;
  return {
    t: x.t,
    step: x.ctx.step + 1,
    phase: x.ctx.phase,
    connections_open: x.gauges.open,
    joined: x.gauges.joined,
    joins_per_s: sum((s) => s.joins),
    sent_per_s: sum((s) => s.sent),
    acked_per_s: sum((s) => s.acked ?? 0),
    acks_pending: x.gauges.acksPending,
    delivered_per_s: sum((s) => s.received),
    sent_per_s_60s: x.means.sent,
    delivered_per_s_60s: x.means.delivered,
    delivery_p50_ms: x.latency.p50,
    delivery_p95_ms: x.latency.p95,
    delivery_p99_ms: x.latency.p99,
    errors: sum((s) => s.errors),
    disconnects: sum((s) => s.disconnects),
    server_cpu_pct: server?.cpuCores != null ? r1((server.cpuCores / x.vcpus) * 100) : null,
    server_rss_mb: server?.rssMb != null ? r1(server.rssMb) : null,
    ...(server?.openFiles
      ? { server_open_files: { open: server.openFiles.open, limit: server.openFiles.limit } }
      : {}),
    ...osErrorsField(lines),
    generator_cpu_pct: r1(Math.max(...lines.map((s) => s.health.cpuPct))),
    generator_lag_p99_ms: r1(Math.max(...lines.map((s) => s.health.lagP99Ms))),
    ...(x.lateLines > 0 ? { late_lines: x.lateLines } : {}),
    ...spreadField(lines),
  };
}

/** How many of the second's lines are pieces of one that covered several (figures/spread-line). */
function spreadField(lines: readonly SecondStats[]): { spread_lines?: number } {
  const n = lines.filter(isSpreadPiece).length;
  return n > 0 ? { spread_lines: n } : {};
}
