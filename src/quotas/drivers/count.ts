/**
 * A count quota's three phases (max_channels_per_client, max_concurrent_users): add one after
 * another up to `below` × n, then up to `above` × n, then give back to one under `below` and add
 * one more, which must pass. Each refusal may cost the target's error backoff: two are enough
 * evidence in any phase.
 */
import { nowMs } from '../../measure/clock.js';
import type { Quotas } from '../../profile/schema.js';
import type { QuotaName, QuotaRow } from '../../result/quotas.js';
import { judgeQuota } from '../judge.js';
import type { Ledger } from '../ledger.js';

/** What a count check adds one of, and how it gives them back. */
export interface CountDriver {
  quota: QuotaName;
  /** The declared value. */
  n: number;
  quotas: Quotas;
  ledger: Ledger;
  /** What one is called in a phase's load ("channels", "users"). */
  unit: string;
  /** Where the below phase holds them, after the count (" on one socket"), or "". */
  where: string;
  /** Adds one (a join, a user); false when refused. Records it in the ledger. */
  addOne(): Promise<boolean>;
  /** How many are held now. */
  held(): number;
  /** Whether another may be tried (false once the one socket closed). */
  canTry(): boolean;
  /** Gives back down to `keep` and waits until the target has counted them out. */
  shrinkTo(keep: number): Promise<void>;
  /** The count held when the first refusal came, or null. */
  onset(): number | null;
}

/** Adds while under `max` until two refusals; what it offered: the highest count it tried. */
async function addUpTo(d: CountDriver, max: number): Promise<number> {
  let refusals = 0;
  while (d.held() < max && refusals < 2 && d.canTry()) if (!(await d.addOne())) refusals++;
  return d.held() + (refusals > 0 ? 1 : 0);
}

export async function checkCount(d: CountDriver): Promise<QuotaRow> {
  const { n, quotas: q, ledger, unit } = d;
  const belowN = Math.max(1, Math.floor(q.below * n));
  const aboveN = Math.max(n + 1, Math.ceil(q.above * n));
  const t0 = nowMs();
  const belowOffered = await addUpTo(d, belowN);
  const t1 = nowMs();
  const aboveOffered = await addUpTo(d, aboveN);
  const t2 = nowMs();
  await d.shrinkTo(belowN - 1);
  const t3 = nowMs();
  const ok = await d.addOne();
  const t4 = nowMs();
  const rec = ledger.phase(t3, t4 + 1, {
    load: `${belowN} ${unit}`,
    target: belowN,
    offered: ok ? belowN : belowN - 1,
  });
  const phases = {
    below: ledger.phase(t0, t1, {
      load: `${belowN} ${unit}${d.where}`,
      target: belowN,
      offered: belowOffered,
    }),
    above: ledger.phase(t1, t2, {
      load: `up to ${aboveN} ${unit}`,
      target: aboveN,
      offered: aboveOffered,
    }),
    recovery: {
      ...rec,
      recovered_after_ms: ok ? t4 - t3 : null,
      window_ms: q.error_backoff + 1000,
    },
  };
  return judgeQuota({
    quota: d.quota,
    declared: n,
    expectedOnset: n,
    settings: q,
    phases,
    onset: d.onset(),
  });
}
