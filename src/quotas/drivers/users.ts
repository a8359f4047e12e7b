/**
 * max_concurrent_users: user after user (a socket joined to one channel) until refused; onset =
 * users admitted.
 */
import { QConn } from '../../client/qconn.js';
import { Ledger } from '../ledger.js';
import { Pool, refusalOf } from '../pool.js';
import { sleep } from '../../util/sleep.js';
import type { QuotaRow } from '../../result/quotas.js';
import { checkCount } from './count.js';
import { joinPaceMs, type QuotaCheckOptions } from './types.js';

export async function checkUsers(o: QuotaCheckOptions, n: number): Promise<QuotaRow> {
  const q = o.quotas;
  const pool = new Pool(o.target);
  const ledger = new Ledger();
  const pace = joinPaceMs(q);
  const topic = 'realtime:rtcap-quota-users';
  const users: QConn[] = [];
  try {
    let onset: number | null = null;
    const addOne = async (): Promise<boolean> => {
      await sleep(pace);
      const c = await pool.open();
      if (!(c instanceof QConn)) {
        onset ??= users.length;
        ledger.reject(c.reason, c.sentAtMs);
        return false;
      }
      const r = await c.join(topic, {});
      if (r.ok) {
        ledger.accept(r.sentAtMs);
        users.push(c);
        return true;
      }
      onset ??= users.length;
      ledger.reject(refusalOf(r.reason), r.sentAtMs);
      pool.drop(c);
      return false;
    };
    const shrinkTo = async (keep: number): Promise<void> => {
      while (users.length > keep) pool.drop(users.pop()!);
      await sleep(300); // the target counts a user out when its socket closes
    };
    return await checkCount({
      quota: 'max_concurrent_users',
      n,
      quotas: q,
      ledger,
      unit: 'users',
      where: '',
      addOne,
      held: () => users.length,
      canTry: () => true,
      shrinkTo,
      onset: () => onset,
    });
  } finally {
    await pool.closeAll();
  }
}
