/**
 * The live Postgres Changes subscriptions, indexed by table for the poller (docs/PROTOCOL.md
 * §7.1 step 4): single `eq` filters are looked up by value, other filters evaluated, so a change
 * costs the number of subscribers it can reach rather than the number of subscribers of the
 * table. Subscriptions are added by subscriptions.ts once their rows are inserted.
 */
import { visibleThroughFilters, type CompiledFilter } from './filters.js';
import { normalize } from './filter-values.js';

export type ActionFilter = '*' | 'INSERT' | 'UPDATE' | 'DELETE';

export interface Subscription {
  id: string;
  role: string;
  claimsJson: string;
  /** Subscriptions with equal role and claims share one RLS check per change. */
  claimsKey: string;
  action: ActionFilter;
  /** Filters compiled against each table's column types. */
  filtersByRelid: Map<number, CompiledFilter[]>;
}

interface EqIndex {
  typname: string;
  byValue: Map<unknown, Set<Subscription>>;
}

export interface EntitySubscriptions {
  /** Subscribers by role: the no-primary-key and unauthorised errors go to all of them. */
  byRole: Map<string, Set<Subscription>>;
  /** Single non-negated `eq` filter, looked up by the change's value of that column. */
  eq: Map<string, EqIndex>;
  unfiltered: Set<Subscription>;
  /** Any other filter set, evaluated per change. */
  other: Set<Subscription>;
}

/**
 * docs/PROTOCOL.md §7.2: `*`, INSERT, UPDATE or DELETE, case-insensitive; anything else means `*`.
 */
export function actionFilter(event: unknown): ActionFilter {
  const e = typeof event === 'string' ? event.toUpperCase() : '*';
  return e === 'INSERT' || e === 'UPDATE' || e === 'DELETE' ? e : '*';
}

function actionMatches(sub: Subscription, type: 'INSERT' | 'UPDATE' | 'DELETE'): boolean {
  return sub.action === '*' || sub.action === type;
}

export class SubscriptionRegistry {
  private readonly byId = new Map<string, { sub: Subscription; relids: number[] }>();
  private readonly byEntity = new Map<number, EntitySubscriptions>();

  get size(): number {
    return this.byId.size;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  entity(relid: number): EntitySubscriptions | undefined {
    return this.byEntity.get(relid);
  }

  add(sub: Subscription): void {
    this.remove(sub.id);
    const relids = [...sub.filtersByRelid.keys()];
    this.byId.set(sub.id, { sub, relids });
    for (const relid of relids) {
      let ent = this.byEntity.get(relid);
      if (!ent) {
        ent = { byRole: new Map(), eq: new Map(), unfiltered: new Set(), other: new Set() };
        this.byEntity.set(relid, ent);
      }
      let role = ent.byRole.get(sub.role);
      if (!role) ent.byRole.set(sub.role, (role = new Set()));
      role.add(sub);
      const filters = sub.filtersByRelid.get(relid)!;
      if (filters.length === 0) ent.unfiltered.add(sub);
      else if (filters.length === 1 && filters[0].op === 'eq' && !filters[0].negate) {
        const f = filters[0];
        let idx = ent.eq.get(f.column);
        if (!idx) ent.eq.set(f.column, (idx = { typname: f.typname, byValue: new Map() }));
        let set = idx.byValue.get(f.key);
        if (!set) idx.byValue.set(f.key, (set = new Set()));
        set.add(sub);
      } else ent.other.add(sub);
    }
  }

  remove(id: string): boolean {
    const entry = this.byId.get(id);
    if (!entry) return false;
    this.byId.delete(id);
    const { sub } = entry;
    for (const relid of entry.relids) {
      const ent = this.byEntity.get(relid);
      if (!ent) continue;
      const role = ent.byRole.get(sub.role);
      role?.delete(sub);
      if (role && role.size === 0) ent.byRole.delete(sub.role);
      ent.unfiltered.delete(sub);
      ent.other.delete(sub);
      const f = sub.filtersByRelid.get(relid)![0];
      const idx = f ? ent.eq.get(f.column) : undefined;
      const set = idx?.byValue.get(f!.key);
      if (set) {
        set.delete(sub);
        if (set.size === 0) idx!.byValue.delete(f!.key);
        if (idx!.byValue.size === 0) ent.eq.delete(f!.column);
      }
      if (ent.byRole.size === 0) this.byEntity.delete(relid);
    }
    return true;
  }

  /**
   * Subscribers of `relid` whose action and filters match a change whose filter-relevant
   * values are `values` (the new row, or the old row for DELETE: docs/PROTOCOL.md §7.1 step 4).
   */
  matching(
    relid: number,
    type: 'INSERT' | 'UPDATE' | 'DELETE',
    values: Map<string, string | null>,
  ): Subscription[] {
    const ent = this.byEntity.get(relid);
    if (!ent) return [];
    const out: Subscription[] = [];
    for (const s of ent.unfiltered) if (actionMatches(s, type)) out.push(s);
    for (const [column, idx] of ent.eq) {
      const v = values.get(column);
      if (v === undefined || v === null) continue;
      const set = idx.byValue.get(normalize(idx.typname, v));
      if (set) for (const s of set) if (actionMatches(s, type)) out.push(s);
    }
    for (const s of ent.other) {
      if (actionMatches(s, type) && visibleThroughFilters(s.filtersByRelid.get(relid)!, values))
        out.push(s);
    }
    return out;
  }
}
