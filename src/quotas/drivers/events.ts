import { EV } from '../../protocol/constants.js';
import { QConn } from '../../client/qconn.js';
import { Ledger } from '../ledger.js';
import { Pool, QuotaAbort, refusalOf } from '../pool.js';
import type { Quotas } from '../../profile/schema.js';
import { rejoinGate } from './rate.js';
import type { RateDriver } from './types.js';
/**
 * max_events_per_second. Events: one sender broadcasting to one receiver — +1 per inbound
 * broadcast, +1 per delivery.
 */
export function eventsDriver(pool: Pool, q: Quotas): RateDriver {
  const ledger = new Ledger();
  const topic = 'realtime:rtcap-quota-events';
  let sender: QConn | null = null;
  let receiver: QConn | null = null;
  const gate = rejoinGate(q);
  const rejoin = (c: QConn) => {
    void gate
      .wait()
      .then(() => c.join(topic, {}))
      .then((r) => {
        if (!r.ok) ledger.reject(refusalOf(r.reason), r.sentAtMs);
      });
  };
  return {
    quota: 'max_events_per_second',
    eventsPerAct: 2,
    ledger,
    start: async () => {
      const s = await pool.open();
      const r = await pool.open({
        onBroadcast: (_c, _t, at) => ledger.accept(at),
        onChannelError: (_c, reason, at) => ledger.reject(reason, at),
        onChannelClosed: (c) => rejoin(c),
      });
      if (!(s instanceof QConn) || !(r instanceof QConn))
        throw new QuotaAbort(
          `events check: cannot connect: ${[s, r].map((x) => (x instanceof QConn ? '' : x.reason)).join(' ')}`,
        );
      for (const c of [s, r]) {
        const j = await c.join(topic, {});
        if (!j.ok) throw new QuotaAbort(`events check: join refused: ${refusalOf(j.reason)}`);
      }
      sender = s;
      receiver = r;
    },
    act: (k) => {
      if (!sender || !receiver) return false;
      // The inbound broadcast counts even while the target is tripped (it closes recipients
      // instead).
      const sent = sender.push(
        topic,
        EV.broadcast,
        { type: EV.broadcast, event: 'quota', payload: { k } },
        false,
      );
      if (sent) ledger.accept();
      return sent;
    },
  };
}
