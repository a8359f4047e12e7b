/**
 * The coordinator's database loader (Postgres Changes, seed 002 §6): inserts rows at a fixed
 * rate on the open-model schedule through a small pg pool, each row carrying its stream and
 * sequence ("stream:seq" in `body`) and its scheduled time (`sent_at`), so receivers can match
 * and time it. Failed inserts are counted, never counted as sent.
 */
import pg from 'pg';
import { nowMs } from '../measure/clock.js';
import { streamId } from '../measure/ledger.js';
import { OpenSchedule } from './schedule.js';
import { changeBody } from './traffic.js';
import type { SendRecord } from '../measure/aggregate.js';
import type { InsertTraffic } from '../scenarios/types.js';
import { redactText } from '../redact/redact.js';

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

export interface InsertRun {
  done: Promise<{ sends: SendRecord[]; stats: InsertStats }>;
  /** Stops scheduling; rows in flight finish. */
  stop(): void;
}

export function startInserts(opts: {
  traffic: InsertTraffic;
  step: number;
  startMs: number;
  durationMs: number;
  connectionString: string;
  lateThresholdMs: number;
  poolSize?: number;
  /** The local streams whose rows this loader inserts (a split run's share); absent: all. */
  mine?: (localStream: number) => boolean;
}): InsertRun {
  const { traffic, step } = opts;
  const pool = new pg.Pool({
    connectionString: opts.connectionString,
    max: opts.poolSize ?? 4,
    connectionTimeoutMillis: 10_000,
  });
  pool.on('error', () => undefined);
  const byStream = new Map<number, { sched: number[]; actual: number[] }>();
  const stats: InsertStats = { scheduled: 0, sent: 0, failed: 0, late: 0, errors: {} };
  const inflight = new Set<Promise<void>>();
  // Rows of one stream commit in seq order (each waits for the one before it), so receivers see
  // them in order: the ledger takes a seq not above the last one of its stream as a duplicate.
  const tailOf = new Map<number, Promise<unknown>>();
  const schedule = new OpenSchedule(opts.startMs, traffic.ratePerS);
  const giveUpAtMs = opts.startMs + 2 * opts.durationMs + 1000;
  let stopped = false;
  let k = 0;

  const record = (stream: number, seq: number, sched: number, actual: number) => {
    let s = byStream.get(stream);
    if (!s) byStream.set(stream, (s = { sched: [], actual: [] }));
    s.sched[seq] = sched;
    s.actual[seq] = actual;
  };

  const done = new Promise<{ sends: SendRecord[]; stats: InsertStats }>((resolve) => {
    const finish = async () => {
      await Promise.allSettled([...inflight]);
      await pool.end().catch(() => undefined);
      const sends: SendRecord[] = [...byStream].map(([stream, s]) => ({
        stream,
        sched: Float64Array.from(s.sched, (v) => v ?? 0),
        actual: Float64Array.from(s.actual, (v) => (v === undefined ? NaN : v)),
      }));
      resolve({ sends, stats });
    };
    const tick = () => {
      const now = nowMs();
      while (!stopped && k < traffic.count) {
        const due = schedule.timeOf(k);
        if (due > now) break;
        const row = traffic.rowOf(k);
        if (opts.mine && !opts.mine(row.stream)) {
          k++;
          continue;
        }
        stats.scheduled++;
        const body = changeBody(streamId(step, row.stream), row.seq);
        const prev = tailOf.get(row.stream) ?? Promise.resolve();
        const q = prev.then(() => pool.query(traffic.sql, [row.roomId, body, due]));
        tailOf.set(
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
              const committedMs = nowMs();
              stats.sent++;
              if (committedMs - due > opts.lateThresholdMs) stats.late++;
              record(row.stream, row.seq, due, committedMs);
            },
            (e: Error) => {
              stats.failed++;
              const reason = `insert failed: ${redactText(e.message)}`;
              stats.errors[reason] = (stats.errors[reason] ?? 0) + 1;
              record(row.stream, row.seq, due, NaN);
            },
          )
          .finally(() => inflight.delete(p));
        inflight.add(p);
        k++;
        if (now > giveUpAtMs) stopped = true;
      }
      if (!stopped && k < traffic.count)
        setTimeout(tick, Math.max(0, schedule.timeOf(k) - nowMs()));
      else void finish();
    };
    setTimeout(tick, Math.max(0, opts.startMs - nowMs()));
  });
  return {
    done,
    stop: () => {
      stopped = true;
    },
  };
}
