import { QConn } from '../../client/qconn.js';
import { Ledger } from '../ledger.js';
import { Pool, refusalOf } from '../pool.js';
import type { Quotas } from '../../profile/schema.js';
import type { RateDriver } from './types.js';
/**
 * max_joins_per_second. Joins: each act joins a fresh topic on an idle pooled socket and leaves it
 * once joined.
 */
export function joinsDriver(pool: Pool, q: Quotas): RateDriver {
  const ledger = new Ledger();
  const idle: QConn[] = [];
  let opening = 0;
  let live = 0;
  // Each pooled socket is a user: stay under a declared user quota.
  const cap = Math.max(
    1,
    Math.min(16, q.max_concurrent_users ? Math.floor(q.below * q.max_concurrent_users) - 1 : 16),
  );
  const joinOn = (c: QConn, k: number) => {
    void c.join(`realtime:rtcap-quota-j-${k}`, {}).then((r) => {
      if (r.ok) {
        ledger.accept(r.sentAtMs);
        c.leave(`realtime:rtcap-quota-j-${k}`);
        idle.push(c);
      } else {
        ledger.reject(refusalOf(r.reason), r.sentAtMs);
        // The target closes the socket with the refusal (docs/PROTOCOL.md §8.2); do not reuse it.
        live--;
        pool.drop(c);
      }
    });
  };
  return {
    quota: 'max_joins_per_second',
    eventsPerAct: 1,
    ledger,
    start: async () => undefined,
    act: (k) => {
      const c = idle.pop();
      if (c && !c.closed) {
        joinOn(c, k);
        return true;
      }
      if (c) live--;
      // Every socket busy: this join is not offered (counted as skipped).
      if (live + opening >= cap) return false;
      opening++;
      void pool.open().then((o) => {
        opening--;
        if (o instanceof QConn) {
          live++;
          joinOn(o, k);
        } else ledger.reject(o.reason, o.sentAtMs);
      });
      return true;
    },
  };
}
