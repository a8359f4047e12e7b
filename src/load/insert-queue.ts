/**
 * The coordinator's rows in flight, in stream order: each row of a stream waits for the one
 * before it, so receivers see a stream's rows in seq order (the ledger takes a seq not above the
 * last one of its stream as a duplicate), while rows of different streams run side by side on
 * the pool.
 */
import { nowMs } from '../measure/clock.js';
import type { InsertRecord } from './insert-record.js';

/** A query on the database: resolves once the row committed. */
export type InsertQuery = (sql: string, params: unknown[]) => Promise<unknown>;

export interface InsertRow {
  stream: number;
  seq: number;
  roomId: number;
}

export class StreamOrderedInserts {
  private readonly tailOf = new Map<number, Promise<unknown>>();
  private readonly inflight = new Set<Promise<void>>();

  constructor(
    private readonly query: InsertQuery,
    private readonly sql: string,
    private readonly record: InsertRecord,
    private readonly clock: () => number = nowMs,
  ) {}

  /** Queues the row behind its stream's previous one; its outcome goes to the record. */
  insert(row: InsertRow, body: string, dueMs: number): void {
    const prev = this.tailOf.get(row.stream) ?? Promise.resolve();
    const q = prev.then(() => this.query(this.sql, [row.roomId, body, dueMs]));
    this.tailOf.set(
      row.stream,
      q.catch(() => undefined),
    );
    const p = q
      .then(
        () => {
          // An insert is made when it committed (the query returned), not when it was
          // queued: rows waiting for a pool connection or for the row before them are
          // rtcap's backlog, so they count against the offered ratio (generator-bound),
          // never as the server's latency or loss.
          this.record.committed(row.stream, row.seq, dueMs, this.clock());
        },
        (e: Error) => this.record.failed(row.stream, row.seq, dueMs, e),
      )
      .finally(() => this.inflight.delete(p));
    this.inflight.add(p);
  }

  /** Resolves once every row queued so far committed or failed. */
  settled(): Promise<unknown> {
    return Promise.allSettled([...this.inflight]);
  }
}
