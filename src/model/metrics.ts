/**
 * Named figures of a step, read from result data. Fits, knees, capacity rows and
 * thresholds all name the figure they use through this one table, so "deliveries/s" means
 * the same thing in the fit, the capacity table and a threshold expression.
 *
 * Types come from the result schema (result/result.ts, a leaf every layer may import): the
 * model depends on the shape of result data, never on report code.
 */
import type { StepResult } from '../result/result.js';
import type {
  JoinRateExtra,
  PostgresChangesExtra,
  PresenceExtra,
  WriteOnlyExtra,
} from '../result/extra.js';

/** The number, or null when absent, NaN or not a number (never 0 for "missing"). */
export function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function extra<T>(step: StepResult): Partial<T> {
  return (step.extra ?? {}) as Partial<T>;
}

function sumValues(r: Record<string, number> | undefined): number {
  let n = 0;
  for (const v of Object.values(r ?? {})) if (typeof v === 'number') n += v;
  return n;
}

/** Total errors of a step: every verbatim reason counted. */
export function errorCount(step: StepResult): number {
  return sumValues(step.errors);
}

/** Presence driver of docs/METHOD.md §5: Σ over topics of members² × per-member update rate. */
export function presenceLoad(step: StepResult): number | null {
  const e = extra<PresenceExtra>(step);
  const m = num(e.members_per_topic);
  const topics = num(e.topics);
  const share = num(e.update_share_per_s);
  if (m === null || topics === null || share === null) return null;
  return topics * m * m * share;
}

/** Predicted join ceiling of docs/METHOD.md §4: db_pool ÷ check time, per second. */
export function poolOverCheckPerS(step: StepResult): number | null {
  const e = extra<JoinRateExtra>(step);
  const predicted = num(e.predicted_ceiling_per_s);
  if (predicted !== null) return predicted;
  const pool = num(e.db_pool);
  const checkMs = num(e.auth_check_ms_p50);
  return pool !== null && checkMs !== null && checkMs > 0 ? pool / (checkMs / 1000) : null;
}

export type StepMetric = (step: StepResult) => number | null;

/**
 * Every figure a threshold expression, a fit or a capacity row may name. Units are in the
 * names (docs/ARCHITECTURE.md "Code rules"). Ratios are 0..1; percentages are 0..100.
 */
export const STEP_METRICS = {
  p50_ms: (s) => num(s.latency_ms?.p50),
  p95_ms: (s) => num(s.latency_ms?.p95),
  p99_ms: (s) => num(s.latency_ms?.p99),
  p999_ms: (s) => num(s.latency_ms?.p999),
  max_ms: (s) => num(s.latency_ms?.max),
  fanout_p50_ms: (s) => num(s.fanout_span_ms?.p50),
  fanout_p95_ms: (s) => num(s.fanout_span_ms?.p95),
  join_p95_ms: (s) => num(s.connections?.join_latency_ms?.p95),
  delivery_rate: (s) => num(s.delivery_rate),
  errors: (s) => errorCount(s),
  server_errors: (s) => num(s.error_classes?.server),
  connections: (s) => num(s.connections?.joined),
  /** Connections the step asked for. */
  connections_target: (s) => num(s.params?.connections) ?? num(s.connections?.target),
  failed: (s) => num(s.connections?.failed),
  disconnected: (s) => num(s.connections?.disconnected),
  lost: (s) => num(s.messages?.lost),
  duplicates: (s) => num(s.messages?.duplicates),
  send_failed: (s) => num(s.messages?.send_failed),
  sent_per_s: (s) => num(s.rates?.sent_per_s),
  delivered_per_s: (s) => num(s.rates?.delivered_per_s),
  joins_per_s: (s) => num(s.rates?.joins_per_s),
  join_rate: (s) => num(s.params?.join_rate),
  send_rate: (s) => num(s.params?.send_rate),
  /** Deliveries per second the step asked for: expected ÷ steady duration. The knee
   *  orders steps by it, because a broken step's measured delivered/s falls back. */
  expected_per_s: (s) => {
    const expected = num(s.messages?.expected);
    const durationS = num(s.params?.duration_s);
    return expected !== null && durationS !== null && durationS > 0 ? expected / durationS : null;
  },
  payload_bytes: (s) => num(s.params?.payload_bytes),
  egress_mib_per_s: (s) => num(s.rates?.egress_mib_per_s),
  cpu_pct: (s) => num(s.server?.cpu_pct),
  mem_pct: (s) => num(s.server?.mem_pct),
  rss_mb: (s) => num(s.server?.rss_mb),
  generator_cpu_pct: (s) => num(s.generator?.cpu_pct),
  generator_lag_p99_ms: (s) => num(s.generator?.event_loop_lag_p99_ms),
  offered_ratio: (s) => num(s.generator?.offered_ratio),
  presence_deliveries_per_s: (s) => num(extra<PresenceExtra>(s).presence_deliveries_per_s),
  presence_members: (s) => num(extra<PresenceExtra>(s).members_per_topic),
  presence_load: presenceLoad,
  pool_over_check_per_s: poolOverCheckPerS,
  join_ceiling_per_s: (s) => num(extra<JoinRateExtra>(s).measured_ceiling_per_s),
  cdc_subscribers: (s) => num(extra<PostgresChangesExtra>(s).subscribers),
  cdc_changes_per_s: (s) => num(extra<PostgresChangesExtra>(s).changes_per_s),
  cdc_missing: (s) => num(extra<PostgresChangesExtra>(s).deliveries_missing),
  /**
   * Acks by ack time per steady second (rates.acked_per_s); older results: the write-only extra.
   */
  acked_per_s: (s) =>
    s.rates?.acked_per_s !== undefined
      ? num(s.rates.acked_per_s)
      : num(extra<WriteOnlyExtra>(s).acked_per_s),
} satisfies Record<string, StepMetric>;

export type StepMetricName = keyof typeof STEP_METRICS;

export function isStepMetricName(name: string): name is StepMetricName {
  return Object.prototype.hasOwnProperty.call(STEP_METRICS, name);
}

export function stepMetric(step: StepResult, name: StepMetricName): number | null {
  return STEP_METRICS[name](step);
}
