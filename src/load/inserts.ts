/**
 * The coordinator's database loader (Postgres Changes, docs/METHOD.md §6): inserts rows at a fixed
 * rate on the open-model schedule through a small pg pool, each row carrying its stream and
 * sequence ("stream:seq" in `body`) and its scheduled time (`sent_at`), so receivers can match
 * and time it. Failed inserts are counted, never counted as sent.
 */
import pg from 'pg';
import { nowMs } from '../measure/clock.js';
import { streamId } from '../measure/stream-id.js';
import type { SendRecord } from '../measure/aggregate.js';
import type { InsertTraffic } from '../scenarios/types.js';
import { StreamOrderedInserts } from './insert-queue.js';
import { InsertRecord, type InsertStats } from './insert-record.js';
import { OpenSchedule } from '../generator/schedule.js';
import { changeBody } from '../generator/traffic.js';

export interface InsertRun {
  done: Promise<{ sends: SendRecord[]; stats: InsertStats }>;
  /** Stops scheduling; rows in flight finish. */
  stop(): void;
}

export interface InsertsOptions {
  traffic: InsertTraffic;
  step: number;
  startMs: number;
  durationMs: number;
  connectionString: string;
  lateThresholdMs: number;
  poolSize?: number;
  /** The local streams whose rows this loader inserts (a split run's share); absent: all. */
  mine?: (localStream: number) => boolean;
}

/**
 * A small pool. An idle client's error (the server went away) is ignored here rather than ending
 * the coordinator: the next query on it fails and is counted as a failed insert.
 */
function insertPool(opts: InsertsOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: opts.connectionString,
    max: opts.poolSize ?? 4,
    connectionTimeoutMillis: 10_000,
  });
  pool.on('error', () => undefined);
  return pool;
}

export function startInserts(opts: InsertsOptions): InsertRun {
  const { traffic, step } = opts;
  const pool = insertPool(opts);
  const record = new InsertRecord(opts.lateThresholdMs);
  const rows = new StreamOrderedInserts(
    (sql, params) => pool.query(sql, params),
    traffic.sql,
    record,
  );
  const schedule = new OpenSchedule(opts.startMs, traffic.ratePerS);
  const giveUpAtMs = opts.startMs + 2 * opts.durationMs + 1000;
  let stopped = false;
  let k = 0;

  const done = new Promise<{ sends: SendRecord[]; stats: InsertStats }>((resolve) => {
    const finish = async () => {
      await rows.settled();
      await pool.end().catch(() => undefined);
      resolve({ sends: record.sends(), stats: record.stats });
    };
    // Every row due by now, in schedule order; then wait for the next one to fall due.
    const tick = () => {
      const now = nowMs();
      while (!stopped && k < traffic.count) {
        const due = schedule.timeOf(k);
        if (due > now) break;
        const row = traffic.rowOf(k++);
        if (opts.mine && !opts.mine(row.stream)) continue;
        record.stats.scheduled++;
        rows.insert(row, changeBody(streamId(step, row.stream), row.seq), due);
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
