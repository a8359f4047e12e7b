/**
 * Known answers for Postgres Changes inserts: the bench table gets a trigger
 * that sleeps 50 ms per row, so rtcap's four insert lanes commit at most ~80 rows/s while the
 * step offers 160/s: the insert path backs up on rtcap's side. The backlog must show as an
 * offered shortfall of the inserts' kind (`changes`) and make the step generator-bound; it is
 * never server latency or loss: sent = the rows in the table, expected = rows × subscribers,
 * received = the changes the built-in server wrote, and latency counts from each row's commit.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { DEV_JWT_SECRET } from '../../src/builtin/config.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { INSERT_LANES } from '../../src/scenarios/changes.js';
import { runScenario } from '../support/scenario-run.js';
import { profileFrom } from '../support/profiles.js';
import { serverCounters } from '../support/server-metrics.js';

let srv: RunningServer | null = null;
afterEach(async () => {
  await srv?.close();
  srv = null;
});

const SLEEP_S = 0.05;

async function sql(connectionString: string, text: string): Promise<pg.QueryResult> {
  const c = new pg.Client({ connectionString });
  await c.connect();
  try {
    return await c.query(text);
  } finally {
    await c.end();
  }
}

describe('known-answer database: inserts that commit slower than they are offered', () => {
  it('the backlog is an offered shortfall of the inserts (generator-bound), never server latency or loss', async () => {
    srv = await startServer({ port: 0, log: () => undefined });
    const db = srv.databaseConnectionString!;
    await sql(
      db,
      `create function bench_slow_row() returns trigger language plpgsql as $$ begin perform pg_sleep(${SLEEP_S}); return new; end $$;
      create trigger bench_slow_row before insert on public.bench_messages for each row execute function bench_slow_row();`,
    );
    const subscribers = 4;
    const insertRate = 160;
    const profile = profileFrom({
      name: 'ka-inserts',
      scenario: 'postgres-changes',
      target: { url: srv.url, database_url: db, auth: { jwt_secret: DEV_JWT_SECRET } },
      // 320 rows due over 2 s; committed one lane at a time (rows of a lane commit in order).
      load: {
        join_rate: 100,
        drain: '6s',
        steps: [{ connections: subscribers, insert_rate: insertRate, duration: '2s' }],
      },
      slo: { p95_ms: 1500 },
    });
    const { result } = await runScenario(profile);
    const s = result.steps[0];
    const rows = Number(
      (await sql(db, 'select count(*)::int as n from public.bench_messages')).rows[0].n,
    );
    const counters = await serverCounters(srv.port);

    // Every scheduled row committed, late: what the table holds is what rtcap counts as sent.
    expect(s.messages.scheduled).toBe(320);
    expect(rows).toBe(320);
    expect(s.messages.sent).toBe(rows);
    expect(s.messages.send_failed).toBe(0);
    // Expected from what committed; received is exactly what the server wrote; nothing lost.
    expect(s.messages.expected).toBe(rows * subscribers);
    expect(counters.realtime_postgres_changes_delivered_total).toBe(rows * subscribers);
    expect(s.messages.received).toBe(counters.realtime_postgres_changes_delivered_total);
    expect(s.messages.lost).toBe(0);
    expect(s.messages.duplicates).toBe(0);

    // Committed by steady_end + 1 s: at most lanes ÷ sleep per second over 3 s (240 of 320).
    const ceiling = (INSERT_LANES / SLEEP_S) * 3;
    const offered = s.extra.offered_sends_in_window as number;
    expect(offered).toBeLessThanOrEqual(ceiling);
    expect(offered).toBeGreaterThan(0);
    expect(s.generator.offered_by_part!.changes).toBe(Math.round((offered / 320) * 1000) / 1000);
    expect(s.generator.offered_by_part!.changes).toBeLessThan(0.8);
    expect(s.generator.offered_ratio).toBe(s.generator.offered_by_part!.changes);
    expect(s.verdict).toBe('generator-bound');
    expect(s.verdict_reasons[0]).toMatch(
      /^offered [\d.]+% of the scheduled load < 90.00% \(behind: changes \(inserts\) [\d.]+%\)$/,
    );
    // Never the server's latency: counted from each row's commit, the server's own delivery
    // time (poll + fan-out) stays within the SLO, while the rows waited up to 2 s in rtcap's
    // lanes — visible only in the latency from the scheduled insert time.
    expect(s.verdict_reasons.join('\n')).not.toMatch(/p95|lost/);
    expect(s.latency_ms.p95!).toBeLessThan(1500);
    expect(s.latency_from_actual_send_ms.p95).toBe(s.latency_ms.p95);
    expect(s.delivery_latency_ms.p95!).toBeGreaterThan(s.latency_ms.p95! + 1000);
    expect(s.messages.late).toBeGreaterThan(0);
  }, 120_000);

  it('in a mixed step only the inserts fall behind: broadcast and presence stay at 1.0 and the verdict names only the inserts', async () => {
    srv = await startServer({ port: 0, log: () => undefined });
    const db = srv.databaseConnectionString!;
    await sql(
      db,
      `create function bench_slow_row() returns trigger language plpgsql as $$ begin perform pg_sleep(${SLEEP_S}); return new; end $$;
      create trigger bench_slow_row before insert on public.bench_messages for each row execute function bench_slow_row();`,
    );
    const profile = profileFrom({
      name: 'ka-inserts-mixed',
      scenario: 'mixed',
      target: { url: srv.url, database_url: db, auth: { jwt_secret: DEV_JWT_SECRET } },
      // 2 rooms of 4: 5 broadcasts/s per room (20 in 2 s), 8 presence updates, 320 rows due over 2
      // s.
      load: {
        join_rate: 100,
        drain: '6s',
        steps: [
          {
            connections: 8,
            members: 4,
            room_send_rate: 5,
            update_share: 0.5,
            insert_rate: 160,
            duration: '2s',
          },
        ],
      },
      slo: { p95_ms: 1500 },
    });
    const { result } = await runScenario(profile);
    const s = result.steps[0];
    const rows = Number(
      (await sql(db, 'select count(*)::int as n from public.bench_messages')).rows[0].n,
    );
    const counters = await serverCounters(srv.port);
    const kinds = s.extra.kinds as Record<
      'broadcast' | 'presence' | 'changes',
      { sent: number; expected: number; received: number; lost: number; offered_ratio: number }
    >;

    expect(rows).toBe(320);
    expect(kinds.changes).toMatchObject({
      sent: rows,
      expected: rows * 8,
      received: counters.realtime_postgres_changes_delivered_total,
      lost: 0,
    });
    expect(kinds.broadcast).toMatchObject({
      sent: 20,
      expected: 60,
      received: counters.realtime_broadcast_deliveries_total,
      lost: 0,
    });
    expect(kinds.presence).toMatchObject({ sent: 8, expected: 32, received: 32, lost: 0 });
    // Only the inserts fell behind rtcap's schedule.
    expect(kinds.broadcast.offered_ratio).toBe(1);
    expect(kinds.presence.offered_ratio).toBe(1);
    expect(kinds.changes.offered_ratio).toBeLessThan(0.8);
    expect(s.generator.offered_by_part).toEqual({
      broadcast: 1,
      presence: 1,
      changes: kinds.changes.offered_ratio,
      joins: 1,
    });
    expect(s.verdict).toBe('generator-bound');
    expect(s.verdict_reasons).toHaveLength(1);
    expect(s.verdict_reasons[0]).toMatch(/\(behind: changes \(inserts\) [\d.]+%\)$/);
  }, 120_000);
});
