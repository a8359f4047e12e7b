/**
 * What a step's verdict reads (VerdictInput), what it is judged against (the SLO, the
 * generator's limits) and what it returns; the rules themselves are in docs/VERDICTS.md.
 */
import type { ErrorClass, Verdict } from '../result/result.js';

/** What the verdict needs from a step; the run engine can fill it before a StepResult exists. */
export interface VerdictInput {
  delivery_rate: number | null;
  latency_p95_ms: number | null;
  latency_p99_ms: number | null;
  connections_failed: number;
  /** Connections joined (members measured); absent in inputs made before it was passed. */
  connections_joined?: number | null;
  connections_disconnected: number;
  messages_lost: number;
  error_classes: Partial<Record<ErrorClass, number>>;
  /** Counts by verbatim reason; scanned for generator-side errno codes a classifier missed. */
  errors?: Record<string, number>;
  generator_cpu_pct: number | null;
  generator_lag_p99_ms: number | null;
  generator_offered_ratio: number | null;
  /**
   * The offered ratio per part of the load (traffic kind, joins), to name the parts that fell
   * behind.
   */
  generator_offered_by_part?: Record<string, number> | null;
  /**
   * Connections the step asked for: join success is (target − failed) ÷ target. Absent: any failure
   * breaks.
   */
  connections_target?: number;
  /** Scheduled join time → ok reply, p95 of the step's joins; null when none joined. */
  join_latency_p95_ms?: number | null;
  /** The ramp's measured join rate beside the offered one, and how long the offered ramp lasted. */
  join_rate?: { measured_per_s: number | null; offered_per_s: number; ramp_ms: number } | null;
  /** Acked sends (load.ack); absent or null when no ack was asked for. */
  acks?: { unacked: number; errors: number; untracked: number; acked?: number } | null;
  /**
   * First-receipt latency of each traffic kind of a step that carried several (mixed): every
   * kind is held to the SLO and named, not only the headline (primary) kind. Absent or with
   * one kind: the headline latency above is the step's.
   */
  latency_by_kind?: Record<string, { p95_ms: number | null; p99_ms: number | null }> | null;
  /**
   * Presence tracks: unanswered within load.ack_timeout (the server's failure) and untracked
   * (sent while the generator's bounded pending-track state was full: its own limit).
   */
  presence_tracks?: { unanswered: number; untracked: number } | null;
  /**
   * The traffic the step asked for (messages, updates or rows per second, all kinds together)
   * and what it sent: a step that asked for traffic and sent none measured no delivery, however
   * well its joins went. Absent: not judged.
   */
  traffic?: { asked_per_s: number; sent: number } | null;
}

export interface VerdictSlo {
  p95_ms: number;
  p99_ms?: number;
  /** 1 = every expected message must arrive. */
  delivery_rate: number;
  /** Joins slower than this at p95 make the step degraded. */
  join_p95_ms?: number;
  /** Share of the step's connections that must join; 1 (default) = every one. */
  join_success?: number;
}

/**
 * A server that keeps up answers joins at the rate offered (joinsPerS is exact then, whatever
 * the latency), so a measured rate below 90 % of it is a server falling behind the join
 * schedule; the 10 % is room for reply jitter. At twice the server's join capacity it is 50 %.
 */
export const JOIN_RATE_KEPT = 0.9;
/**
 * Ramps shorter than this are not judged by their rate: a few ms of jitter would dominate. A
 * stable step with such a ramp says its join rate was not judged (never a silent pass).
 */
export const MIN_JOIN_RAMP_MS = 1000;

export interface GeneratorLimits {
  min_offered_ratio: number;
  max_event_loop_lag_p99_ms: number;
  max_cpu_pct: number;
}

/** The defaults docs/VERDICTS.md gives: 99 % offered, 50 ms lag p99, 90 % CPU. */
export const DEFAULT_GENERATOR_LIMITS: GeneratorLimits = {
  min_offered_ratio: 0.99,
  max_event_loop_lag_p99_ms: 50,
  max_cpu_pct: 90,
};

export interface VerdictDecision {
  verdict: Verdict;
  reasons: string[];
}
