/**
 * The figures the dashboard shows, each defined from what the run already measures (one
 * definition each, docs/FIGURES.md "The dashboard"): a second is the merged per-second line of
 * timeseries.ndjson as written, plus the step's target, the phase's time and the generator's
 * memory; a step is the subset of its StepResult the page draws. Pure.
 */
import type { StepResult } from '../result/result.js';
import type { TimeseriesPoint } from '../result/timeseries-point.js';
import type { PhaseClock } from '../run/runner.js';
import type { SecondRecord } from '../figures/timeline.js';
import { r1 } from '../util/round.js';
import { secondLimitWords, type SecondLimitContext } from '../model/second-limit.js';

/**
 * One second on the page: the timeseries.ndjson line, field for field, and what the line leaves
 * out.
 */
export interface DashboardSecond extends TimeseriesPoint {
  /** Connections the current step asks for. */
  target_connections: number;
  /**
   * The generator processes' resident memory summed (MiB), as `generator.rss_mb_total` sums it
   * for a step's peak; null when no process reported.
   */
  generator_rss_mb: number | null;
  phase_elapsed_s: number;
  phase_length_s: number | null;
  steps_planned: number;
  /**
   * The limit of this machine the second met, in the progress line's words
   * (model/second-limit); absent when it met none.
   */
  limit?: string;
}

export function dashboardSecond(
  rec: SecondRecord,
  targetConnections: number,
  clock: PhaseClock,
  limitCtx: SecondLimitContext = {},
): DashboardSecond {
  const rss = rec.workers.map((w) => w.health.rssMb).filter((v) => Number.isFinite(v));
  const limit = secondLimitWords(rec.point, limitCtx);
  return {
    ...rec.point,
    target_connections: targetConnections,
    generator_rss_mb: rss.length ? r1(rss.reduce((a, b) => a + b, 0)) : null,
    phase_elapsed_s: r1(clock.elapsedS),
    phase_length_s: clock.lengthS,
    steps_planned: clock.steps,
    ...(limit ? { limit } : {}),
  };
}

/** A finished step as the page lists it: the StepResult's own figures, unchanged. */
export interface DashboardStep {
  index: number;
  label: string;
  verdict: StepResult['verdict'];
  verdict_reasons: string[];
  complete: boolean;
  params: StepResult['params'];
  connections: { target: number; joined: number; failed: number; disconnected: number };
  delivery_rate: number | null;
  /** First-receipt latency (send → first receipt of each message), known at the step's end. */
  latency_ms: { p50: number | null; p95: number | null; p99: number | null };
  rates: { sent_per_s: number | null; delivered_per_s: number | null; joins_per_s: number | null };
  server: { cpu_pct: number | null; rss_mb: number | null };
  generator: {
    cpu_pct: number | null;
    event_loop_lag_p99_ms: number | null;
    rss_mb_total: number | null;
  };
}

export function dashboardStep(s: StepResult): DashboardStep {
  return {
    index: s.index,
    label: s.label,
    verdict: s.verdict,
    verdict_reasons: s.verdict_reasons,
    complete: s.complete,
    params: s.params,
    connections: {
      target: s.connections.target,
      joined: s.connections.joined,
      failed: s.connections.failed,
      disconnected: s.connections.disconnected,
    },
    delivery_rate: s.delivery_rate,
    latency_ms: { p50: s.latency_ms.p50, p95: s.latency_ms.p95, p99: s.latency_ms.p99 },
    rates: {
      sent_per_s: s.rates.sent_per_s,
      delivered_per_s: s.rates.delivered_per_s,
      joins_per_s: s.rates.joins_per_s,
    },
    server: { cpu_pct: s.server.cpu_pct, rss_mb: s.server.rss_mb },
    generator: {
      cpu_pct: s.generator.cpu_pct,
      event_loop_lag_p99_ms: s.generator.event_loop_lag_p99_ms,
      rss_mb_total: s.generator.rss_mb_total ?? null,
    },
  };
}
