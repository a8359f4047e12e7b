/**
 * Postgres Changes on the channel side (docs/PROTOCOL.md §7): subscription rows are created
 * through the db seam after the join reply, the `system` "Subscribed to PostgreSQL" (or
 * the error text of docs/PROTOCOL.md §3.3) follows, and each change is delivered once per
 * subscribed channel with every matching binding id in `ids` (docs/PROTOCOL.md §7.3).
 *
 * Deliveries count toward the tenant's db-events counter (subscription ids per change);
 * while it is tripped changes are skipped silently, as the poller does (docs/PROTOCOL.md §7.1 step
 * 5).
 */
import { EV, REASON } from '../protocol/constants.js';
import { isRetryable, type ChangeEvent, type ServerDb } from './db-types.js';
import type { ChangesChannel, ChangesRoom, ServerContext } from './rooms.js';
import { frameText, messageText } from './wire.js';

export interface ChangesTimings {
  /**
   * Retry delay after a retryable subscription error: random in [min, max] (docs/PROTOCOL.md §3.3:
   * 5–10 s).
   */
  pgRetryMinMs: number;
  pgRetryMaxMs: number;
}

export class ChangesHub implements ChangesRoom {
  private readonly bySubscription = new Map<string, { ch: ChangesChannel; id: number }>();
  private attachedTo: ServerDb | null = null;
  /** In a worker of `--workers`, where subscription ownership is reported to the primary. */
  onOwnership: ((ids: string[], owned: boolean) => void) | null = null;

  constructor(
    private readonly ctx: () => ServerContext,
    private readonly timings: () => ChangesTimings,
  ) {}

  /** Called once the channel's join reply is written. */
  add(ch: ChangesChannel): void {
    const db = this.ctx().db;
    if (!db) return;
    this.attach(db);
    for (const b of ch.pg) this.bySubscription.set(b.subscriptionId, { ch, id: b.id });
    this.onOwnership?.(
      ch.pg.map((b) => b.subscriptionId),
      true,
    );
    void this.subscribe(ch, db);
  }

  /** access_token refresh: re-subscribe with the new claims (docs/PROTOCOL.md §3.4 step 4). */
  resubscribe(ch: ChangesChannel): void {
    const db = this.ctx().db;
    if (!db) return;
    void db
      .unsubscribe(ch.pg.map((b) => b.subscriptionId))
      .catch(() => undefined)
      .then(() => this.subscribe(ch, db));
  }

  remove(ch: ChangesChannel): void {
    const ids = ch.pg.map((b) => b.subscriptionId);
    for (const id of ids) this.bySubscription.delete(id);
    this.onOwnership?.(ids, false);
    const db = this.ctx().db;
    if (db)
      void db
        .unsubscribe(ids)
        .catch((e) => this.ctx().log(`unsubscribe failed: ${(e as Error).message}`));
  }

  private async subscribe(ch: ChangesChannel, db: ServerDb): Promise<void> {
    try {
      for (const b of ch.pg) {
        if (ch.closed) return;
        await db.subscribe({
          subscriptionId: b.subscriptionId,
          claims: ch.claims,
          binding: {
            event: b.event,
            schema: b.schema,
            table: b.table,
            ...(b.filter !== undefined ? { filter: b.filter } : {}),
          },
        });
      }
      if (ch.closed) {
        await db.unsubscribe(ch.pg.map((b) => b.subscriptionId)).catch(() => undefined);
        return;
      }
      ch.pushSystem(EV.postgresChanges, 'ok', REASON.subscribedToPostgres);
    } catch (e) {
      if (ch.closed) return;
      ch.pushSystem(EV.postgresChanges, 'error', (e as Error).message);
      // Malformed params are final; database errors are retried (docs/PROTOCOL.md §3.3).
      if (isRetryable(e)) {
        const t = this.timings();
        const waitMs = t.pgRetryMinMs + Math.random() * (t.pgRetryMaxMs - t.pgRetryMinMs);
        ch.schedulePgRetry(waitMs, () => {
          if (!ch.closed) this.resubscribe(ch);
        });
      }
    }
  }

  private attach(db: ServerDb): void {
    if (this.attachedTo === db) return;
    this.attachedTo = db;
    db.onChange((c) => this.deliver(c));
  }

  /** Delivers one change to the local channels among its subscription ids. */
  deliver(change: ChangeEvent): void {
    const perChannel = new Map<ChangesChannel, number[]>();
    for (const sid of change.subscriptionIds) {
      const s = this.bySubscription.get(sid);
      if (!s || s.ch.closed) continue;
      const ids = perChannel.get(s.ch);
      if (ids) {
        if (!ids.includes(s.id)) ids.push(s.id);
      } else perChannel.set(s.ch, [s.id]);
    }
    if (perChannel.size === 0) return;
    const dataJson = JSON.stringify(change.data);
    const stats = this.ctx().stats;
    for (const [ch, ids] of perChannel) {
      const counter = ch.tenant.dbEvents;
      if (counter.tripped) continue;
      counter.add(ids.length);
      // Old-API joins get the change type as event and the bare data as payload
      // (docs/PROTOCOL.md §7.3).
      const to = { v2: ch.v2, joinRef: null, topic: ch.topic };
      const text = ch.cfg.newApi
        ? messageText(
            to,
            null,
            EV.postgresChanges,
            `{"ids":${JSON.stringify(ids)},"data":${dataJson}}`,
          )
        : messageText(to, null, change.data.type, dataJson);
      ch.conn.write(frameText(text));
      stats.changesDelivered++;
    }
  }
}
