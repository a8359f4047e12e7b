/**
 * What `rtcap quotas` checks and reports: the quotas, the refusal each
 * must produce, their units, and the row of evidence each check yields. Judging is in judge.ts,
 * the load in drivers/, the order of checks and the report in orchestrate.ts.
 */
import type { Quotas } from '../../profile/schema.js';
import { REASON } from '../../protocol/constants.js';

export const QUOTA_NAMES = [
  'max_payload_size_in_kb',
  'max_channels_per_client',
  'max_concurrent_users',
  'max_joins_per_second',
  'max_events_per_second',
  'max_presence_events_per_second',
] as const;
export type QuotaName = (typeof QUOTA_NAMES)[number];

/** The refusal each quota must produce (a substring of the verbatim reason). */
export const QUOTA_REASONS: Record<QuotaName, string> = {
  max_payload_size_in_kb: REASON.payloadSizeExceeded,
  max_channels_per_client: REASON.joinTooManyChannels,
  max_concurrent_users: REASON.tooManyConnectedUsers,
  max_joins_per_second: REASON.tooManyJoins,
  max_events_per_second: REASON.tooManyMessages,
  max_presence_events_per_second: REASON.tooManyPresenceMessages,
};

export const QUOTA_UNITS: Record<QuotaName, string> = {
  max_payload_size_in_kb: 'bytes',
  max_channels_per_client: 'channels',
  max_concurrent_users: 'users',
  max_joins_per_second: 'joins/s',
  max_events_per_second: 'events/s',
  max_presence_events_per_second: 'presence events/s',
};

/** Rate quotas: their phases are open-model load for a time, and must reach the rate they claim. */
export const RATE_QUOTAS: ReadonlySet<QuotaName> = new Set([
  'max_joins_per_second',
  'max_events_per_second',
  'max_presence_events_per_second',
]);

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

/** pass: enforced as declared; fail: not; inconclusive: the load needed to tell was not offered. */
export type QuotaOutcome = 'pass' | 'fail' | 'inconclusive';

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

export function declaredQuotas(q: Quotas): Array<[QuotaName, number]> {
  return QUOTA_NAMES.filter((n) => q[n] !== undefined).map((n) => [n, q[n] as number]);
}

export const pct = (x: number) => `${Math.round(x * 100)} %`;
export const num = (x: number) =>
  Number.isInteger(x)
    ? x.toLocaleString('en-US')
    : Number(x.toPrecision(4)).toLocaleString('en-US');

export interface QuotasReport {
  schema: 'rtcap.quotas/v1';
  run_id: string;
  profile: { name: string; path: string | null };
  target: { url: string; builtin: boolean; server_config: Record<string, unknown> | null };
  started_at: string;
  finished_at: string;
  /** Why the checks could not run, or null. */
  abort_reason: string | null;
  settings: Omit<Quotas, QuotaName>;
  /**
   * fail: a quota is not enforced as declared; inconclusive: none failed, but one could not be
   * shown (or the checks could not finish).
   */
  result: QuotaOutcome;
  /** result === 'pass'. */
  pass: boolean;
  rows: QuotaRow[];
}

export function reportOutcome(r: Pick<QuotasReport, 'rows' | 'abort_reason'>): QuotaOutcome {
  if (r.rows.some((x) => x.result === 'fail')) return 'fail';
  if (
    r.abort_reason !== null ||
    r.rows.length === 0 ||
    r.rows.some((x) => x.result === 'inconclusive')
  )
    return 'inconclusive';
  return 'pass';
}
