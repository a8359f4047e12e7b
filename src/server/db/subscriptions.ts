/**
 * Postgres Changes subscriptions (docs/PROTOCOL.md §7.1 step 2, §6.4 last bullet).
 *
 * `subscribe` parses the binding's filter (a malformed filter is refused before touching the
 * database, not retryable), then inserts one `realtime.subscription` row per matching
 * publication table through the subscription pool (`subs_pool_size` connections). The
 * row's trigger validates the filter columns and values; its exceptions come back in the
 * docs/PROTOCOL.md §3.3 text `Unable to subscribe to changes with given parameters. An exception
 * happened ...`. A pool checkout timeout or a lost connection counts one error in a 30 s window
 * whose limit is the pool size; that failure and every subscribe while the window is
 * tripped are refused with `{:error, "Too many database timeouts"}` (retryable).
 *
 * The registry indexes live subscriptions by table for the poller: single `eq` filters are
 * looked up by value, other filters evaluated, so a change costs the number of subscribers
 * it can reach rather than the number of subscribers of the table.
 */
import type pg from 'pg';
import {
  PoolTimeoutError,
  SubscriptionError,
  TOO_MANY_DB_TIMEOUTS,
  isConnectionFailure,
  postgrexMessage,
} from './errors.js';
import { compileFilter, visibleThroughFilters, type CompiledFilter } from './filters.js';
import { parseFilter, type Filter } from './filter-parse.js';
import { normalize } from './filter-values.js';
import type { ConnectionPool } from './pool.js';
import type { ErrorWindow } from './rate-counter.js';

export type ActionFilter = '*' | 'INSERT' | 'UPDATE' | 'DELETE';

export interface SubscriptionRequest {
  subscriptionId: string;
  claims: Record<string, unknown>;
  binding: { event: string; schema: string; table: string; filter?: string };
}

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

// ---------------------------------------------------------------------------------------

const INSERT_SQL = {
  name: 'rtcap_subscription_insert',
  text: `with sub_tables as (
    select format('%I.%I', pub.schemaname, pub.tablename)::regclass as entity
    from pg_publication_tables pub
    where pub.pubname = $1
      and pub.schemaname like (case $2 when '*' then '%' else $2 end) escape ''
      and pub.tablename like (case $3 when '*' then '%' else $3 end) escape ''
  )
  insert into realtime.subscription as x (subscription_id, entity, filters, claims, action_filter)
  select $4::text::uuid, sub_tables.entity,
    (select coalesce(array_agg(row(c, o::realtime.equality_op, v, n)::realtime.user_defined_filter),
                     '{}'::realtime.user_defined_filter[])
       from unnest($5::text[], $6::text[], $7::text[], $8::boolean[]) as f(c, o, v, n)),
    $9::jsonb, $10
  from sub_tables
  on conflict (subscription_id, entity, filters, action_filter)
    do update set claims = excluded.claims, created_at = timezone('utc', now())
  returning x.entity::oid::int8 as relid,
    (select coalesce(jsonb_object_agg(a.attname, t.typname), '{}'::jsonb)
       from pg_attribute a join pg_type t on t.oid = a.atttypid
      where a.attrelid = x.entity and a.attname = any($5::text[])) as types`,
};

/** Supabase's `params_to_log`, part of the docs/PROTOCOL.md §3.3 error text. */
function paramsToLog(
  action: ActionFilter,
  schema: string,
  table: string,
  filters: Filter[],
): string {
  const fs = filters.map(
    (f) =>
      `{${JSON.stringify(f.column)}, ${JSON.stringify(f.op)}, ${JSON.stringify(f.value)}, ${f.negate}}`,
  );
  return `event: ${action}, schema: ${schema}, table: ${table}, filters: [${fs.join(', ')}], select: nil`;
}

export interface SubscriptionsOptions {
  pool: ConnectionPool;
  errors: ErrorWindow;
  queueTargetMs: number;
  publication: string;
  registry: SubscriptionRegistry;
  log?: (line: string) => void;
}

export class Subscriptions {
  constructor(private readonly opts: SubscriptionsOptions) {}

  async subscribe(req: SubscriptionRequest): Promise<void> {
    const { binding } = req;
    const action = actionFilter(binding.event);
    const schema =
      typeof binding.schema === 'string' && binding.schema !== '' ? binding.schema : 'public';
    const table = typeof binding.table === 'string' && binding.table !== '' ? binding.table : '*';
    const parsed = parseFilter(binding.filter);
    if (!parsed.ok) throw new SubscriptionError(parsed.error, false);
    const filters = parsed.filters;
    const role = typeof req.claims.role === 'string' ? req.claims.role : '';
    const claimsJson = JSON.stringify(req.claims);

    const { pool, errors, queueTargetMs, publication } = this.opts;
    if (errors.tripped) throw new SubscriptionError(TOO_MANY_DB_TIMEOUTS, true);
    let client: pg.Client;
    try {
      client = await pool.acquire(queueTargetMs);
    } catch (e) {
      if (e instanceof PoolTimeoutError) errors.add(1);
      throw new SubscriptionError(TOO_MANY_DB_TIMEOUTS, true, { cause: e });
    }
    let rows: { relid: string; types: Record<string, string> }[];
    let discard = false;
    try {
      const r = await client.query<{ relid: string; types: Record<string, string> }>({
        ...INSERT_SQL,
        values: [
          publication,
          schema,
          table,
          req.subscriptionId,
          filters.map((f) => f.column),
          filters.map((f) => f.op),
          filters.map((f) => f.value),
          filters.map((f) => f.negate),
          claimsJson,
          action,
        ],
      });
      rows = r.rows;
    } catch (e) {
      if (isConnectionFailure(e)) {
        discard = true;
        errors.add(1);
        throw new SubscriptionError(TOO_MANY_DB_TIMEOUTS, true, { cause: e });
      }
      throw new SubscriptionError(
        `Unable to subscribe to changes with given parameters. An exception happened so please check your connect parameters: [${paramsToLog(action, schema, table, filters)}]. Exception: ${postgrexMessage(e)}`,
        false,
        { cause: e },
      );
    } finally {
      pool.release(client, discard);
    }
    if (rows.length === 0) {
      throw new SubscriptionError(
        `Unable to subscribe to changes with given parameters. Please check Realtime is enabled for the given connect parameters: [${paramsToLog(action, schema, table, filters)}]`,
        false,
      );
    }
    const filtersByRelid = new Map<number, CompiledFilter[]>();
    for (const row of rows) {
      filtersByRelid.set(
        Number(row.relid),
        filters.map((f) => compileFilter(f, row.types[f.column] ?? 'text')),
      );
    }
    this.opts.registry.add({
      id: req.subscriptionId,
      role,
      claimsJson,
      claimsKey: `${role}\u0000${claimsJson}`,
      action,
      filtersByRelid,
    });
  }

  /** Stops deliveries at once; the rows are deleted best-effort (failures only logged). */
  async unsubscribe(ids: string[]): Promise<void> {
    const known = ids.filter((id) => this.opts.registry.remove(id));
    if (known.length === 0) return;
    let client: pg.Client;
    try {
      client = await this.opts.pool.acquire(this.opts.queueTargetMs);
    } catch (e) {
      this.opts.log?.(`SubscriptionDeletionFailed: ${(e as Error).message}`);
      return;
    }
    let discard = false;
    try {
      await client.query(
        'delete from realtime.subscription where subscription_id = any($1::uuid[])',
        [known],
      );
    } catch (e) {
      discard = isConnectionFailure(e);
      this.opts.log?.(`SubscriptionDeletionFailed: ${postgrexMessage(e)}`);
    } finally {
      this.opts.pool.release(client, discard);
    }
  }
}
