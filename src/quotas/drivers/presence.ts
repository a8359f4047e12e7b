import { nowMs } from '../../measure/clock.js';
import { EV } from '../../protocol/constants.js';
import { QConn } from '../../client/qconn.js';
import { Ledger } from '../ledger.js';
import { Pool, QuotaAbort, refusalOf } from '../pool.js';
import type { QConnEvents } from '../../client/qconn.js';
import type { Quotas } from '../../profile/schema.js';
import { rejoinGate } from './rate.js';
import type { RateDriver } from './types.js';
/**
 * max_presence_events_per_second. Presence: trackers updating in turn on one topic with an
 * observer; each track counts once and once per member's diff.
 */
export function presenceDriver(pool: Pool, q: Quotas): RateDriver {
  const TRACKERS = 2;
  const ledger = new Ledger();
  const gate = rejoinGate(q);
  const topic = 'realtime:rtcap-quota-presence';
  const trackers: QConn[] = [];
  const config = (key: string) => ({ presence: { key, enabled: true } });
  const keyOf = new Map<QConn, string>();
  const events: QConnEvents = {
    onPresenceFrame: (_c, _kind, _t, at) => ledger.accept(at),
    onChannelError: (_c, reason, at) => ledger.reject(reason, at),
    onChannelClosed: (c) => {
      void gate
        .wait()
        .then(() => c.join(topic, config(keyOf.get(c) ?? '')))
        .then((r) => {
          if (!r.ok) ledger.reject(refusalOf(r.reason), r.sentAtMs);
        });
    },
  };
  return {
    quota: 'max_presence_events_per_second',
    // The track itself, then a diff to every member, the tracker included (Phoenix.Presence
    // local_broadcast reaches every channel on the topic; docs/PROTOCOL.md §5): TRACKERS trackers
    // and the observer.
    eventsPerAct: 2 + TRACKERS,
    ledger,
    start: async () => {
      for (let i = 0; i <= TRACKERS; i++) {
        const c = await pool.open(events);
        if (!(c instanceof QConn))
          throw new QuotaAbort(`presence check: cannot connect: ${c.reason}`);
        keyOf.set(c, `rtcap-${i}`);
        const j = await c.join(topic, config(`rtcap-${i}`));
        if (!j.ok) throw new QuotaAbort(`presence check: join refused: ${refusalOf(j.reason)}`);
        if (i < TRACKERS) trackers.push(c);
      }
    },
    act: (k) => {
      const c = trackers[k % TRACKERS];
      if (!c.joined.has(topic)) return false; // closed by the target, rejoining: counted as skipped
      const at = nowMs();
      // A changed payload every time: tracking an identical one is a no-op (docs/PROTOCOL.md §5.1).
      void c
        .push(topic, EV.presence, { type: EV.presence, event: 'track', payload: { k } }, true)
        .then((r) => {
          if (r.ok) ledger.accept(at);
        });
      return true;
    },
  };
}
