/**
 * The database seen from a cluster worker: every call goes to the primary over IPC (the
 * primary runs the one database, primary-db.ts) and its reply settles the call; changes
 * for this worker's subscriptions arrive the same way.
 */
import type { ChangeEvent, DbStats, ServerDb } from '../db-types.js';
import type { DbMethod, DbReply, ToPrimary } from './messages.js';

export class RemoteDb implements ServerDb {
  private seq = 0;
  private readonly pending = new Map<
    number,
    { resolve: (v: unknown) => void; reject: (e: Error) => void }
  >();
  private readonly listeners: ((c: ChangeEvent) => void)[] = [];
  /** The primary's database figures, as its last rate tick sent them. */
  cachedStats: DbStats = { authPoolWaiting: 0, authErrors: 0, pollerLagMs: null, lastPollMs: null };

  constructor(
    readonly url: string,
    private readonly post: (m: ToPrimary) => void,
  ) {}

  private call<T>(method: DbMethod, args: unknown[]): Promise<T> {
    const id = this.seq++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.post({ t: 'db', id, method, args });
    });
  }

  connectionString(): string {
    // Only the primary hands the unredacted URL out (rtcap serve --database-url-file).
    return this.url;
  }

  reply(m: DbReply): void {
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    if (m.ok) p.resolve(m.value);
    else {
      const { message, code, retryable } = m.error;
      p.reject(Object.assign(new Error(message), { code, retryable }));
    }
  }

  change(c: ChangeEvent): void {
    for (const l of this.listeners) l(c);
  }

  authorizeRead(ctx: Parameters<ServerDb['authorizeRead']>[0], opts: { presence: boolean }) {
    return this.call<{ broadcast: boolean; presence: boolean }>('authorizeRead', [ctx, opts]);
  }
  authorizeWrite(
    ctx: Parameters<ServerDb['authorizeWrite']>[0],
    extension: 'broadcast' | 'presence',
  ) {
    return this.call<boolean>('authorizeWrite', [ctx, extension]);
  }
  async subscribe(sub: Parameters<ServerDb['subscribe']>[0]): Promise<void> {
    await this.call('subscribe', [sub]);
  }
  async unsubscribe(ids: string[]): Promise<void> {
    await this.call('unsubscribe', [ids]);
  }
  onChange(cb: (c: ChangeEvent) => void): void {
    this.listeners.push(cb);
  }
  stats(): DbStats {
    return this.cachedStats;
  }
  async stop(): Promise<void> {}
}
