/**
 * max_concurrent_users: user after user (a socket joined to one channel) until refused; onset =
 * users admitted.
 */
import { nowMs } from '../../measure/clock.js';
import { QConn } from '../client.js';
import { judgeQuota } from '../judge.js';
import { Ledger } from '../ledger.js';
import { Pool, refusalOf } from '../pool.js';
import { sleep } from '../../util/sleep.js';
import type { QuotaRow } from '../../result/quotas.js';
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
    const addUser = async (): Promise<boolean> => {
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
    const belowN = Math.max(1, Math.floor(q.below * n));
    const aboveN = Math.max(n + 1, Math.ceil(q.above * n));
    const t0 = nowMs();
    // Each refusal may cost the target's connect or join backoff: two are enough evidence in any
    // phase.
    let belowRefusals = 0;
    while (users.length < belowN && belowRefusals < 2) if (!(await addUser())) belowRefusals++;
    const t1 = nowMs();
    // What a count phase offered: the highest count it tried (the refused attempt included).
    const belowOffered = users.length + (belowRefusals > 0 ? 1 : 0);
    let refusals = 0;
    while (refusals < 2 && users.length < aboveN) if (!(await addUser())) refusals++;
    const t2 = nowMs();
    const aboveOffered = users.length + (refusals > 0 ? 1 : 0);
    while (users.length > belowN - 1) pool.drop(users.pop()!);
    await sleep(300); // the target counts a user out when its socket closes
    const t3 = nowMs();
    const ok = await addUser();
    const t4 = nowMs();
    const rec = ledger.phase(t3, t4 + 1, `${belowN} users`, belowN, ok ? belowN : belowN - 1);
    const phases = {
      below: ledger.phase(t0, t1, `${belowN} users`, belowN, belowOffered),
      above: ledger.phase(t1, t2, `up to ${aboveN} users`, aboveN, aboveOffered),
      recovery: {
        ...rec,
        recovered_after_ms: ok ? t4 - t3 : null,
        window_ms: q.error_backoff + 1000,
      },
    };
    return judgeQuota({
      quota: 'max_concurrent_users',
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
