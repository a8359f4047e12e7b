/**
 * What one step's coordinator inserts recorded: each stream's scheduled and commit times per
 * sequence number (the SendRecords the ledger matches receipts against) and the counts. A failed
 * insert is counted and its reason kept (redacted), never counted as sent.
 */
import type { SendRecord } from '../measure/aggregate.js';
import { redactText } from '../redact/redact.js';
import { addGrouped } from '../util/error-groups.js';

/** What the coordinator's inserts did in one step. */
export interface InsertStats {
  scheduled: number;
  /** Rows committed. */
  sent: number;
  failed: number;
  /** Rows committed later than load.late_threshold after their scheduled time. */
  late: number;
  errors: Record<string, number>;
}

export class InsertRecord {
  readonly stats: InsertStats = { scheduled: 0, sent: 0, failed: 0, late: 0, errors: {} };
  private readonly byStream = new Map<number, { sched: number[]; actual: number[] }>();
  private readonly counted = new Map<string, number>();
  private readonly groups = new Map<string, string>();

  constructor(private readonly lateThresholdMs: number) {}

  /** A row committed at `committedMs`: sent, and late when past the threshold. */
  committed(stream: number, seq: number, dueMs: number, committedMs: number): void {
    this.stats.sent++;
    if (committedMs - dueMs > this.lateThresholdMs) this.stats.late++;
    this.set(stream, seq, dueMs, committedMs);
  }

  /** A row the database refused: failed, with its reason; its send time stays NaN. */
  failed(stream: number, seq: number, dueMs: number, error: Error): void {
    this.stats.failed++;
    const reason = `insert failed: ${redactText(error.message)}`;
    // Grouped (util/error-groups): one refused value per row must not make one reason per row.
    const name = addGrouped(this.counted, this.groups, reason, 1);
    this.stats.errors[name] = this.counted.get(name)!;
    this.set(stream, seq, dueMs, NaN);
  }

  /** Each stream's scheduled and actual times by seq; a seq never inserted is 0 and NaN. */
  sends(): SendRecord[] {
    return [...this.byStream].map(([stream, s]) => ({
      stream,
      sched: Float64Array.from(s.sched, (v) => v ?? 0),
      actual: Float64Array.from(s.actual, (v) => (v === undefined ? NaN : v)),
    }));
  }

  private set(stream: number, seq: number, sched: number, actual: number): void {
    let s = this.byStream.get(stream);
    if (!s) this.byStream.set(stream, (s = { sched: [], actual: [] }));
    s.sched[seq] = sched;
    s.actual[seq] = actual;
  }
}
