/**
 * A cluster's instance-wide rate counters and users (docs/PROTOCOL.md §8.1 counts per node; one
 * rtcap instance is one node): each worker sends its counts once per flush interval, the primary
 * adds them to its own tenants' RateCounters and ticks them, and sends every worker the trip
 * state and the users the other workers hold, so a quota trips for the whole instance.
 */
import type { TenantRegistry } from '../tenants.js';
import { COUNTERS, type CountsMessage, type RatesMessage } from './messages.js';

export class PrimaryRates {
  /** Per worker node, its connected users per tenant (from its last counts). */
  private readonly users = new Map<number, Map<string, number>>();

  /** `tenants`: the primary's own, holding the instance-wide counters only. */
  constructor(private readonly tenants: TenantRegistry) {}

  /** A worker's counts since its last: added to the instance-wide counters. */
  counts(node: number, m: CountsMessage): void {
    const u = new Map<string, number>();
    for (const [id, c] of Object.entries(m.tenants)) {
      const t = this.tenants.get(id);
      u.set(id, c.users);
      if (!t) continue;
      COUNTERS.forEach((name, i) => t[name].add(c.c[i]));
    }
    this.users.set(node, u);
  }

  /** Ticks the instance-wide counters and gives `send` each of `nodes`' state. */
  tick(
    nodes: Iterable<number>,
    send: (node: number, rates: RatesMessage['tenants']) => void,
  ): void {
    const perTenantUsers = new Map<string, number>();
    for (const u of this.users.values()) {
      for (const [id, n] of u) perTenantUsers.set(id, (perTenantUsers.get(id) ?? 0) + n);
    }
    for (const t of this.tenants.all) t.tick();
    for (const node of nodes) {
      const mine = this.users.get(node);
      const rates: RatesMessage['tenants'] = {};
      for (const t of this.tenants.all) {
        rates[t.id] = {
          s: COUNTERS.map((name) => [t[name].tripped, t[name].value] as [boolean, number]),
          remoteUsers: (perTenantUsers.get(t.id) ?? 0) - (mine?.get(t.id) ?? 0),
        };
      }
      send(node, rates);
    }
  }

  /** A worker is gone: its users no longer count. */
  dropNode(node: number): void {
    this.users.delete(node);
  }
}
