/**
 * The database of a cluster, on the primary: only the primary runs it. It answers the
 * workers' calls (authorisation, Postgres Changes subscriptions) and routes each change to
 * the worker that owns its subscription ids.
 */
import { databaseOptions, loadDatabase, type ChangeEvent, type ServerDb } from '../db-types.js';
import type { ServerOptions, ServerTimings } from '../options.js';
import type { TenantRegistry } from '../tenants.js';
import type { DbCall, DbReply } from './messages.js';

/** The primary's own database, or null (logged) when it cannot start. */
export async function openDatabase(
  database: ServerOptions['database'],
  tenants: TenantRegistry,
  timings: ServerTimings,
  log: (l: string) => void,
): Promise<ServerDb | null> {
  const databaseUrl = database === false ? undefined : database?.databaseUrl;
  try {
    return await loadDatabase(databaseOptions(tenants.all[0].config, timings, databaseUrl, log));
  } catch (e) {
    log(`database unavailable: ${(e as Error).message}`);
    return null;
  }
}

export class PrimaryDatabase {
  /** subscription id → owning worker node. */
  private readonly owners = new Map<string, number>();

  constructor(readonly db: ServerDb | null) {}

  /** Runs one worker's call; failures become an error reply, never a throw. */
  async answer(node: number, m: DbCall): Promise<DbReply> {
    try {
      const value = await this.call(node, m);
      return { t: 'dbReply', id: m.id, ok: true, value: value ?? null };
    } catch (e) {
      const err = e as Error & { code?: string; retryable?: boolean };
      const error = { message: err.message, code: err.code, retryable: err.retryable };
      return { t: 'dbReply', id: m.id, ok: false, error };
    }
  }

  private async call(node: number, m: DbCall): Promise<unknown> {
    const db = this.db;
    if (!db) throw Object.assign(new Error('database unavailable'), { code: 'db_error' });
    switch (m.method) {
      case 'subscribe': {
        const sub = m.args[0] as Parameters<ServerDb['subscribe']>[0];
        this.owners.set(sub.subscriptionId, node);
        return db.subscribe(sub);
      }
      case 'unsubscribe': {
        const ids = m.args[0] as string[];
        for (const id of ids) this.owners.delete(id);
        return db.unsubscribe(ids);
      }
      case 'authorizeRead':
        return db.authorizeRead(
          m.args[0] as Parameters<ServerDb['authorizeRead']>[0],
          m.args[1] as { presence: boolean },
        );
      case 'authorizeWrite':
        return db.authorizeWrite(
          m.args[0] as Parameters<ServerDb['authorizeWrite']>[0],
          m.args[1] as 'broadcast' | 'presence',
        );
    }
  }

  /** One change split by owning worker: each gets only its own subscription ids. */
  route(change: ChangeEvent): Map<number, ChangeEvent> {
    const byNode = new Map<number, string[]>();
    for (const id of change.subscriptionIds) {
      const n = this.owners.get(id);
      if (n === undefined) continue;
      const list = byNode.get(n);
      if (list) list.push(id);
      else byNode.set(n, [id]);
    }
    const out = new Map<number, ChangeEvent>();
    for (const [n, ids] of byNode) out.set(n, { data: change.data, subscriptionIds: ids });
    return out;
  }

  /** A worker went away: its subscriptions have no one to deliver to. */
  dropNode(node: number): void {
    for (const [id, n] of this.owners) if (n === node) this.owners.delete(id);
  }
}
