/**
 * max_channels_per_client: one socket joins channel after channel until refused; onset = channels
 * admitted.
 */
import { nowMs } from '../../measure/clock.js';
import { QConn } from '../client.js';
import { judgeQuota } from '../judge.js';
import { Ledger } from '../ledger.js';
import { Pool, QuotaAbort, refusalOf } from '../pool.js';
import { sleep } from '../../util/sleep.js';
import type { QuotaRow } from '../../result/quotas.js';
import { joinPaceMs, type QuotaCheckOptions } from './types.js';

export async function checkChannels(o: QuotaCheckOptions, n: number): Promise<QuotaRow> {
  const q = o.quotas;
  const pool = new Pool(o.target);
  const ledger = new Ledger();
  const pace = joinPaceMs(q);
  try {
    const c = await pool.open();
    if (!(c instanceof QConn)) throw new QuotaAbort(`channels check: cannot connect: ${c.reason}`);
    const belowN = Math.max(1, Math.floor(q.below * n));
    const aboveN = Math.max(n + 1, Math.ceil(q.above * n));
    let joined = 0;
    let onset: number | null = null;
    let k = 0;
    const joinOne = async (): Promise<boolean> => {
      await sleep(pace);
      const r = await c.join(`realtime:rtcap-quota-ch-${k++}`, {});
      if (r.ok) {
        ledger.accept(r.sentAtMs);
        joined++;
        return true;
      }
      onset ??= joined;
      ledger.reject(refusalOf(r.reason), r.sentAtMs);
      return false;
    };
    const t0 = nowMs();
    // Each refusal may cost the target's error backoff: two are enough evidence in any phase.
    let belowRefusals = 0;
    while (joined < belowN && belowRefusals < 2 && !c.closed)
      if (!(await joinOne())) belowRefusals++;
    const t1 = nowMs();
    // What a count phase offered: the highest count it tried (the refused attempt included).
    const belowOffered = joined + (belowRefusals > 0 ? 1 : 0);
    // Above: up to `above` × n attempts; stop one attempt after the first refusal.
    let refusals = 0;
    while (refusals < 2 && !c.closed && joined < aboveN) {
      if (!(await joinOne())) refusals++;
    }
    const t2 = nowMs();
    const aboveOffered = joined + (refusals > 0 ? 1 : 0);
    // Back below: leave down to one under `below`, then one more join must pass.
    const topics = [...c.joined];
    for (const t of topics.slice(0, Math.max(0, topics.length - (belowN - 1)))) c.leave(t);
    joined = Math.min(joined, belowN - 1);
    await sleep(200);
    const t3 = nowMs();
    const ok = await joinOne();
    const t4 = nowMs();
    const rec = ledger.phase(t3, t4 + 1, `${belowN} channels`, belowN, ok ? belowN : belowN - 1);
    const phases = {
      below: ledger.phase(t0, t1, `${belowN} channels on one socket`, belowN, belowOffered),
      above: ledger.phase(t1, t2, `up to ${aboveN} channels`, aboveN, aboveOffered),
      recovery: {
        ...rec,
        recovered_after_ms: ok ? t4 - t3 : null,
        window_ms: q.error_backoff + 1000,
      },
    };
    return judgeQuota({
      quota: 'max_channels_per_client',
      declared: n,
      expectedOnset: n,
      settings: q,
      phases,
      onset,
    });
  } finally {
    await pool.closeAll();
  }
}
