/**
 * What `rtcap quotas` checks: the refusal each quota must produce, their units, which are rates,
 * and the report's outcome. The quotas.json format (the quota names, the row of evidence each
 * check yields) is result/quotas.ts. Judging is in judge.ts, the load in drivers/, the order of
 * checks and the report in orchestrate.ts.
 */
import type { Quotas } from '../profile/schema.js';
import { REASON } from '../protocol/constants.js';
import {
  QUOTA_NAMES,
  type QuotaName,
  type QuotaOutcome,
  type QuotasReport,
} from '../result/quotas.js';

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

export function declaredQuotas(q: Quotas): Array<[QuotaName, number]> {
  return QUOTA_NAMES.filter((n) => q[n] !== undefined).map((n) => [n, q[n] as number]);
}

export const pct = (x: number) => `${Math.round(x * 100)} %`;
export const num = (x: number) =>
  Number.isInteger(x)
    ? x.toLocaleString('en-US')
    : Number(x.toPrecision(4)).toLocaleString('en-US');

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
