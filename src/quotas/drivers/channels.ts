/**
 * max_channels_per_client: one socket joins channel after channel until refused; onset = channels
 * admitted.
 */
import { QConn } from '../../client/qconn.js';
import { Ledger } from '../ledger.js';
import { Pool, QuotaAbort, refusalOf } from '../pool.js';
import { sleep } from '../../util/sleep.js';
import type { QuotaRow } from '../../result/quotas.js';
import { checkCount } from './count.js';
import { joinPaceMs, type QuotaCheckOptions } from './types.js';

export async function checkChannels(o: QuotaCheckOptions, n: number): Promise<QuotaRow> {
  const q = o.quotas;
  const pool = new Pool(o.target);
  const ledger = new Ledger();
  const pace = joinPaceMs(q);
  try {
    const c = await pool.open();
    if (!(c instanceof QConn)) throw new QuotaAbort(`channels check: cannot connect: ${c.reason}`);
    let joined = 0;
    let onset: number | null = null;
    let k = 0;
    const addOne = async (): Promise<boolean> => {
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
    // Back below: leave down to `keep` channels.
    const shrinkTo = async (keep: number): Promise<void> => {
      const topics = [...c.joined];
      for (const t of topics.slice(0, Math.max(0, topics.length - keep))) c.leave(t);
      joined = Math.min(joined, keep);
      await sleep(200);
    };
    return await checkCount({
      quota: 'max_channels_per_client',
      n,
      quotas: q,
      ledger,
      unit: 'channels',
      where: ' on one socket',
      addOne,
      held: () => joined,
      canTry: () => !c.closed,
      shrinkTo,
      onset: () => onset,
    });
  } finally {
    await pool.closeAll();
  }
}
