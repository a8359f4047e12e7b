/**
 * The format of `rtcap quotas`' quotas.json (`rtcap.quotas/v1`): one row of evidence per quota
 * checked. Types only besides the quota names; src/quotas writes it, report/quotas renders it.
 */

export const QUOTA_NAMES = [
  'max_payload_size_in_kb',
  'max_channels_per_client',
  'max_concurrent_users',
  'max_joins_per_second',
  'max_events_per_second',
  'max_presence_events_per_second',
] as const;
export type QuotaName = (typeof QUOTA_NAMES)[number];

/** pass: enforced as declared; fail: not; inconclusive: the load needed to tell was not offered. */
export type QuotaOutcome = 'pass' | 'fail' | 'inconclusive';

export interface PhaseEvidence {
  /** What was offered, one line: "32 joins/s for 1.4 s (80 % of 40)". */
  load: string;
  /** The load the phase was meant to offer, in the quota's unit (a rate: per second). */
  target: number;
  /**
   * The load it did offer, measured, in the same unit: for a rate, the events the target counts
   * from what was sent in the phase ÷ the phase's duration; for a count, the count reached; for
   * a payload, the size sent. Null when not measured.
   */
  offered: number | null;
  /**
   * Actions the driver could not make (no idle socket, channel not joined): never sent, counted
   * here.
   */
  skipped: number;
  accepted: number;
  rejections: number;
  /** Rejections by verbatim reason. */
  reasons: Record<string, number>;
}

export interface QuotaRow {
  quota: QuotaName;
  declared: number;
  unit: string;
  result: QuotaOutcome;
  /** result === 'pass'. */
  pass: boolean;
  expected_reason: string;
  /** Where refusals began, in `unit` (payload: bytes; the limit is kb × 1000 + 500). */
  onset: number | null;
  /** The onset the declared value implies. */
  expected_onset: number;
  below: PhaseEvidence;
  above: PhaseEvidence;
  recovery: PhaseEvidence & { recovered_after_ms: number | null; window_ms: number };
  /** Why the row failed, one line each. */
  failures: string[];
  /** Why the row is inconclusive (the offered load fell short), one line each. */
  inconclusive: string[];
  /** One line of evidence for the table. */
  evidence: string;
}

/** The profile's `quotas:` settings besides the quotas (profile/schema quotasSchema). */
export interface QuotaSettings {
  below: number;
  above: number;
  tolerance: number;
  min_offered_ratio: number;
  rate_tick: number;
  rate_buckets: number;
  error_backoff: number;
}

export interface QuotasReport {
  schema: 'rtcap.quotas/v1';
  run_id: string;
  profile: { name: string; path: string | null };
  target: { url: string; builtin: boolean; server_config: Record<string, unknown> | null };
  started_at: string;
  finished_at: string;
  /** Why the checks could not run, or null. */
  abort_reason: string | null;
  /** How the checks were made: profile `quotas:` without the quotas themselves. */
  settings: QuotaSettings;
  /**
   * fail: a quota is not enforced as declared; inconclusive: none failed, but one could not be
   * shown (or the checks could not finish).
   */
  result: QuotaOutcome;
  /** result === 'pass'. */
  pass: boolean;
  rows: QuotaRow[];
}
