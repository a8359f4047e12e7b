/**
 * Private-channel authorisation the Supabase way (docs/PROTOCOL.md §6.2, §6.4).
 *
 * Each check is one transaction on a connection of the `realtime_connect` pool (size
 * `db_pool`):
 * - read: as the connection's own role, insert a probe row per extension into
 *   `realtime.messages` (client-generated UUIDs), then set the user's role and claims with
 *   set_config, SELECT the probes back through the RLS policies, ROLLBACK. A probe that
 *   comes back means read is allowed for that extension.
 * - write: set_config, then INSERT a probe row under the user's role inside a savepoint;
 *   insufficient_privilege (an RLS `with check` refusal) means denied. ROLLBACK.
 *
 * A checkout that waits past the queue target, or a connection that fails mid-check (the
 * Elixir `{:exit, _}` cases), adds one to the authorisation-error window (1 s tick × 30
 * buckets, sum, limit = db_pool). While that window is tripped every check short-circuits
 * to `increase_connection_pool` without touching the pool, which is what makes the
 * ceiling pool ÷ check time a hard cliff that heals after the window.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { AuthorizationError, PoolTimeoutError, isConnectionFailure } from './errors.js';
import type { ConnectionPool } from './pool.js';
import type { ErrorWindow } from './rate-counter.js';

export interface AuthContext {
  role: string;
  claims: Record<string, unknown>;
  subtopic: string;
  headers: Record<string, string>;
}

export type Extension = 'broadcast' | 'presence';

export interface AuthorizerOptions {
  pool: ConnectionPool;
  errors: ErrorWindow;
  queueTargetMs: number;
}

const INSUFFICIENT_PRIVILEGE = '42501';

const SET_CONFIG = {
  name: 'rtcap_auth_set_config',
  text: `select set_config('role', $1, true),
       set_config('realtime.topic', $2, true),
       set_config('request.jwt.claims', $3, true),
       set_config('request.jwt.claim.sub', $4, true),
       set_config('request.jwt.claim.role', $5, true),
       set_config('request.headers', $6, true)`,
};
const INSERT_PROBES = {
  name: 'rtcap_auth_insert_probes',
  text: `insert into realtime.messages (id, topic, extension)
       select unnest($1::uuid[]), $2, unnest($3::text[])`,
};
const SELECT_PROBES = {
  name: 'rtcap_auth_select_probes',
  text: `select extension from realtime.messages where topic = $1 and id = any($2::uuid[])`,
};
const INSERT_ONE = {
  name: 'rtcap_auth_insert_one',
  text: `insert into realtime.messages (id, topic, extension) values ($1, $2, $3)`,
};

function configValues(ctx: AuthContext): string[] {
  const sub = ctx.claims.sub;
  return [
    ctx.role,
    ctx.subtopic,
    JSON.stringify(ctx.claims),
    sub === undefined || sub === null ? '' : typeof sub === 'string' ? sub : JSON.stringify(sub),
    ctx.role,
    JSON.stringify(ctx.headers ?? {}),
  ];
}

export class Authorizer {
  constructor(private readonly opts: AuthorizerOptions) {}

  async read(
    ctx: AuthContext,
    presence: boolean,
  ): Promise<{ broadcast: boolean; presence: boolean }> {
    const extensions: Extension[] = presence ? ['broadcast', 'presence'] : ['broadcast'];
    const ids = extensions.map(() => randomUUID());
    const seen = await this.inTransaction(async (c) => {
      await c.query({ ...INSERT_PROBES, values: [ids, ctx.subtopic, extensions] });
      await c.query({ ...SET_CONFIG, values: configValues(ctx) });
      const r = await c.query<{ extension: string }>({
        ...SELECT_PROBES,
        values: [ctx.subtopic, ids],
      });
      return new Set(r.rows.map((row) => row.extension));
    });
    return { broadcast: seen.has('broadcast'), presence: presence && seen.has('presence') };
  }

  async write(ctx: AuthContext, extension: Extension): Promise<boolean> {
    return this.inTransaction(async (c) => {
      await c.query({ ...SET_CONFIG, values: configValues(ctx) });
      await c.query('savepoint rtcap_write_check');
      try {
        await c.query({ ...INSERT_ONE, values: [randomUUID(), ctx.subtopic, extension] });
        return true;
      } catch (e) {
        if ((e as { code?: string }).code === INSUFFICIENT_PRIVILEGE) {
          await c.query('rollback to savepoint rtcap_write_check');
          return false;
        }
        throw e;
      }
    });
  }

  /** Pool checkout, BEGIN, body, ROLLBACK; error accounting of docs/PROTOCOL.md §6.4. */
  private async inTransaction<T>(body: (c: pg.Client) => Promise<T>): Promise<T> {
    const { pool, errors, queueTargetMs } = this.opts;
    if (errors.tripped) throw new AuthorizationError('increase_connection_pool');
    let client: pg.Client;
    try {
      client = await pool.acquire(queueTargetMs);
    } catch (e) {
      if (e instanceof PoolTimeoutError) {
        errors.add(1);
        throw new AuthorizationError('increase_connection_pool', e.message, { cause: e });
      }
      throw new AuthorizationError('db_error', (e as Error).message, { cause: e });
    }
    let discard = false;
    try {
      await client.query('begin');
      try {
        return await body(client);
      } finally {
        await client.query('rollback');
      }
    } catch (e) {
      if (isConnectionFailure(e)) {
        discard = true;
        errors.add(1);
      }
      if (e instanceof AuthorizationError) throw e;
      throw new AuthorizationError('db_error', (e as Error).message, { cause: e });
    } finally {
      pool.release(client, discard);
    }
  }
}
