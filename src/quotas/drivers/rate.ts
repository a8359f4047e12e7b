/**
 * Rate quotas: open-model phases below, above and back below, each a window of the target's
 * rate counter long; the onset is the rate the target counted over the window before its first
 * refusal.
 */
import { nowMs } from '../../measure/clock.js';
import { judgeQuota, type QuotaPhases } from '../judge.js';
import type { Ledger } from '../ledger.js';
import { sleep } from '../../util/sleep.js';
import type { QuotaRow } from '../../result/quotas.js';
import { num, pct } from '../vocabulary.js';
import { joinPaceMs, type QuotaCheckOptions } from './types.js';
import type { Quotas } from '../../profile/schema.js';
import { QUOTA_REASONS, QUOTA_UNITS } from '../vocabulary.js';
import type { RateDriver } from './types.js';

/**
 * Spaces the rejoins of channels the target closed (events and presence checks), so they
 * stay under a declared join-rate quota and come at most once a rate tick.
 */
export class JoinGate {
  private nextMs = 0;
  constructor(private readonly paceMs: number) {}
  async wait(): Promise<void> {
    const now = nowMs();
    const at = Math.max(now, this.nextMs);
    this.nextMs = at + this.paceMs;
    await sleep(at - now);
  }
}

export function rejoinGate(q: Quotas): JoinGate {
  return new JoinGate(Math.max(joinPaceMs(q), q.rate_tick));
}

/**
 * Open-model phases: act k is due at start + k / rate; a late act is made late, never
 * skipped. Ends at `durationMs` or when `until` says so (default: never); bounded either way.
 */
export async function offer(
  act: (k: number) => void,
  phase: {
    rateActsPerS: number;
    durationMs: number;
    until?: () => boolean;
    signal?: AbortSignal;
  },
): Promise<void> {
  const { rateActsPerS, durationMs, until = () => false, signal } = phase;
  const start = nowMs();
  let k = 0;
  while (nowMs() - start < durationMs && !until() && !signal?.aborted) {
    const due = Math.floor(((nowMs() - start) / 1000) * rateActsPerS);
    for (; k <= due; k++) act(k);
    await sleep(5);
  }
}

/** The rate the target counted over the window before its first refusal, per second. */
function onsetOf(
  first: { atMs: number } | undefined,
  counted: readonly number[],
  windowMs: number,
): number | null {
  if (!first) return null;
  const inWindow = counted.filter((t) => t > first.atMs - windowMs && t <= first.atMs).length;
  return inWindow / (windowMs / 1000);
}

/**
 * Back below, from t2 to t3: how long after t2 the last refusal came once a send was accepted
 * after it (0: none refused); null when none was accepted after the last refusal.
 */
function recoveredAfterMs(ledger: Ledger, t2: number, t3: number): number | null {
  const recRejections = ledger.rejections.filter((r) => r.atMs >= t2 && r.atMs < t3);
  const lastRej = recRejections.length ? Math.max(...recRejections.map((r) => r.atMs)) : null;
  const acceptedAfter = ledger.accepted.some(
    (t) => t >= t2 && t < t3 && (lastRej === null || t > lastRej),
  );
  return !acceptedAfter ? null : lastRej === null ? 0 : lastRej - t2;
}

/** The three phases between the times t0..t3, each with the load it was to offer. */
function ratePhases(
  ledger: Ledger,
  t: readonly [number, number, number, number],
  q: Quotas,
  rate: { declared: number; unit: string },
): QuotaPhases {
  const [t0, t1, t2, t3] = t;
  const { declared, unit } = rate;
  const load = (share: number, durMs: number) =>
    `${num(share * declared)} ${unit} for ${num(durMs / 1000)} s (${pct(share)} of ${num(declared)})`;
  return {
    below: ledger.phase(t0, t1, { load: load(q.below, t1 - t0), target: q.below * declared }),
    above: ledger.phase(t1, t2, { load: load(q.above, t2 - t1), target: q.above * declared }),
    recovery: {
      ...ledger.phase(t2, t3, { load: load(q.below, t3 - t2), target: q.below * declared }),
      recovered_after_ms: recoveredAfterMs(ledger, t2, t3),
      window_ms: q.rate_tick * q.rate_buckets + 2 * q.rate_tick,
    },
  };
}

/**
 * `counted`: times of the events the target counts toward this quota, from every check so far
 * (the joins of the count checks are in the join-rate window too); default the driver's own.
 */
export async function checkRate(
  o: QuotaCheckOptions,
  declared: number,
  driver: RateDriver,
  counted?: readonly number[],
): Promise<QuotaRow> {
  const q = o.quotas;
  const tickMs = q.rate_tick;
  const windowMs = tickMs * q.rate_buckets;
  const { ledger } = driver;
  // Every act is counted here, made or skipped: the offered rate is measured, never assumed.
  const act = (k: number) => {
    if (driver.act(k)) ledger.offer(driver.eventsPerAct);
    else ledger.skip();
  };
  /** `share` of the declared rate for `durationMs`, or until `until` says so. */
  const offerShare = (share: number, durationMs: number, until?: () => boolean) =>
    offer(act, {
      rateActsPerS: (share * declared) / driver.eventsPerAct,
      durationMs,
      until,
      signal: o.signal,
    });
  await driver.start();
  const first = () => ledger.rejections.find((r) => r.reason.includes(QUOTA_REASONS[driver.quota]));

  // Below for a whole window (plus two ticks), so the target's average reaches the offered rate.
  const t0 = nowMs();
  await offerShare(q.below, windowMs + 2 * tickMs);
  const t1 = nowMs();
  // Above until the refusals are established (two ticks after the first), at most a window and two
  // ticks.
  await offerShare(q.above, windowMs + 2 * tickMs, () => {
    const f = first();
    return f !== undefined && f.atMs >= t1 && nowMs() > f.atMs + 2 * tickMs;
  });
  const t2 = nowMs();
  await offerShare(q.below, windowMs + 4 * tickMs);
  const t3 = nowMs();
  // Refusals may be answered after the target's error backoff; they count at their send time.
  await sleep(q.error_backoff + 300);

  return judgeQuota({
    quota: driver.quota,
    declared,
    expectedOnset: declared,
    settings: q,
    phases: ratePhases(ledger, [t0, t1, t2, t3], q, { declared, unit: QUOTA_UNITS[driver.quota] }),
    onset: onsetOf(first(), counted ?? ledger.accepted, windowMs),
  });
}
