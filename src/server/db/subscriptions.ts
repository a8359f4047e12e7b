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
 * The live subscriptions the poller matches changes against are subscription-registry.ts.
 */
import type pg from 'pg';
import {
  PoolTimeoutError,
  SubscriptionError,
  TOO_MANY_DB_TIMEOUTS,
  isConnectionFailure,
  postgrexMessage,
} from './errors.js';
import { compileFilter, type CompiledFilter } from './filters.js';
import { parseFilter, type Filter } from './filter-parse.js';
import {
  actionFilter,
  type ActionFilter,
  type SubscriptionRegistry,
} from './subscription-registry.js';
import type { ConnectionPool } from './pool.js';
import type { ErrorWindow } from './rate-counter.js';

export interface SubscriptionRequest {
  subscriptionId: string;
  claims: Record<string, unknown>;
  binding: { event: string; schema: string; table: string; filter?: string };
}

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

/** A binding's action, schema, table and parsed filters (docs/PROTOCOL.md §7.2). */
interface ParsedBinding {
  action: ActionFilter;
  schema: string;
  table: string;
  filters: Filter[];
}

/** The row insert_subscription returns per table it matched: its relation id and column types. */
type InsertedRow = { relid: string; types: Record<string, string> };

/** Defaults applied (schema `public`, table `*`); a filter that does not parse is refused. */
function parseBinding(binding: SubscriptionRequest['binding']): ParsedBinding {
  const action = actionFilter(binding.event);
  const schema =
    typeof binding.schema === 'string' && binding.schema !== '' ? binding.schema : 'public';
  const table = typeof binding.table === 'string' && binding.table !== '' ? binding.table : '*';
  const parsed = parseFilter(binding.filter);
  if (!parsed.ok) throw new SubscriptionError(parsed.error, false);
  return { action, schema, table, filters: parsed.filters };
}

/** The filters compiled against each matched table's column types, by relation id. */
function compileByRelid(rows: InsertedRow[], filters: Filter[]): Map<number, CompiledFilter[]> {
  const filtersByRelid = new Map<number, CompiledFilter[]>();
  for (const row of rows) {
    filtersByRelid.set(
      Number(row.relid),
      filters.map((f) => compileFilter(f, row.types[f.column] ?? 'text')),
    );
  }
  return filtersByRelid;
}

export class Subscriptions {
  constructor(private readonly opts: SubscriptionsOptions) {}

  async subscribe(req: SubscriptionRequest): Promise<void> {
    const b = parseBinding(req.binding);
    const role = typeof req.claims.role === 'string' ? req.claims.role : '';
    const claimsJson = JSON.stringify(req.claims);
    const rows = await this.insert(req.subscriptionId, b, claimsJson);
    if (rows.length === 0) {
      throw new SubscriptionError(
        `Unable to subscribe to changes with given parameters. Please check Realtime is enabled for the given connect parameters: [${paramsToLog(b.action, b.schema, b.table, b.filters)}]`,
        false,
      );
    }
    this.opts.registry.add({
      id: req.subscriptionId,
      role,
      claimsJson,
      claimsKey: `${role}\u0000${claimsJson}`,
      action: b.action,
      filtersByRelid: compileByRelid(rows, b.filters),
    });
  }

  /** A connection of the subscription pool; refused while its error window is tripped. */
  private async acquire(): Promise<pg.Client> {
    const { pool, errors, queueTargetMs } = this.opts;
    if (errors.tripped) throw new SubscriptionError(TOO_MANY_DB_TIMEOUTS, true);
    try {
      return await pool.acquire(queueTargetMs);
    } catch (e) {
      if (e instanceof PoolTimeoutError) errors.add(1);
      throw new SubscriptionError(TOO_MANY_DB_TIMEOUTS, true, { cause: e });
    }
  }

  /**
   * Inserts the subscription's row (realtime.subscription, its filters checked by the trigger);
   * the rows of the tables it matched. A lost connection counts in the error window.
   */
  private async insert(id: string, b: ParsedBinding, claimsJson: string): Promise<InsertedRow[]> {
    const { pool, errors, publication } = this.opts;
    const { action, schema, table, filters } = b;
    const client = await this.acquire();
    let discard = false;
    try {
      const r = await client.query<InsertedRow>({
        ...INSERT_SQL,
        values: [
          publication,
          schema,
          table,
          id,
          filters.map((f) => f.column),
          filters.map((f) => f.op),
          filters.map((f) => f.value),
          filters.map((f) => f.negate),
          claimsJson,
          action,
        ],
      });
      return r.rows;
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
