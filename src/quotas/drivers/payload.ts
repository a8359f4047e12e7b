/**
 * max_payload_size_in_kb: a payload just below, one just above, then bisection to the smallest
 * refused size (the target refuses a JSON payload over kb × 1000 + 500 bytes), then below again.
 */
import { nowMs } from '../../measure/clock.js';
import { EV } from '../../protocol/constants.js';
import { QConn } from '../../client/qconn.js';
import { judgeQuota } from '../judge.js';
import { Ledger } from '../ledger.js';
import { Pool, QuotaAbort, refusalOf } from '../pool.js';
import type { QuotaRow } from '../../result/quotas.js';
import { num, pct } from '../vocabulary.js';
import { type QuotaCheckOptions } from './types.js';

/**
 * A broadcast push payload whose JSON is exactly `bytes` long (ASCII), as the target measures it.
 */
export function payloadOfSize(bytes: number): Record<string, unknown> {
  const base = JSON.stringify({ type: EV.broadcast, event: 'quota', payload: { p: '' } }).length;
  return {
    type: EV.broadcast,
    event: 'quota',
    payload: { p: 'x'.repeat(Math.max(0, bytes - base)) },
  };
}

export async function checkPayload(o: QuotaCheckOptions, kb: number): Promise<QuotaRow> {
  const q = o.quotas;
  const limitBytes = kb * 1000 + 500;
  const pool = new Pool(o.target);
  const ledger = new Ledger();
  const topic = 'realtime:rtcap-quota-payload';
  try {
    const c = await pool.open();
    if (!(c instanceof QConn)) throw new QuotaAbort(`payload check: cannot connect: ${c.reason}`);
    const j = await c.join(topic, { broadcast: { ack: true, self: false } });
    if (!j.ok) throw new QuotaAbort(`payload check: join refused: ${refusalOf(j.reason)}`);
    const probe = async (bytes: number): Promise<boolean> => {
      const at = nowMs();
      const r = await c.push(topic, EV.broadcast, payloadOfSize(bytes), true);
      if (r.ok) ledger.accept(at);
      else ledger.reject(r.reason ?? 'error', at);
      return r.ok;
    };
    const belowBytes = Math.floor(q.below * kb * 1000);
    const aboveBytes = Math.ceil(q.above * limitBytes);
    const t0 = nowMs();
    const belowOk = await probe(belowBytes);
    const t1 = nowMs();
    const aboveOk = await probe(aboveBytes);
    // Bisection: the smallest refused size, to 0.05 % of the limit (about 12 probes).
    let onset: number | null = null;
    let lo = belowOk ? belowBytes : 0;
    let hi = aboveOk ? null : aboveBytes;
    if (!belowOk) hi = belowBytes;
    if (hi !== null) {
      for (let i = 0; i < 24 && hi - lo > Math.max(1, limitBytes * 0.0005); i++) {
        const mid = Math.floor((lo + hi) / 2);
        if (await probe(mid)) lo = mid;
        else hi = mid;
      }
      onset = hi;
    }
    const t2 = nowMs();
    const recovered = await probe(belowBytes);
    const t3 = nowMs();
    // One probe of an exact size per phase: what was offered is what was planned.
    const below = ledger.phase(t0, t1, {
      load: `${num(belowBytes)} B (${pct(q.below)} of ${num(kb)} KB)`,
      target: belowBytes,
      offered: belowBytes,
    });
    const above = ledger.phase(t1, t2, {
      load: `${num(aboveBytes)} B (${pct(q.above)} of the ${num(limitBytes)} B limit)`,
      target: aboveBytes,
      offered: aboveBytes,
    });
    const rec = ledger.phase(t2, t3 + 1, {
      load: `${num(belowBytes)} B`,
      target: belowBytes,
      offered: belowBytes,
    });
    const recovery = {
      ...rec,
      recovered_after_ms: recovered ? t3 - t2 : null,
      window_ms: q.error_backoff + 1000,
    };
    return judgeQuota({
      quota: 'max_payload_size_in_kb',
      declared: kb,
      expectedOnset: limitBytes,
      settings: q,
      phases: { below, above, recovery },
      onset,
    });
  } finally {
    await pool.closeAll();
  }
}
