/**
 * Postgres Changes through the built-in server's tenant database (src/server/db,
 * docs/PROTOCOL.md §7): subscription inserts per second through the subscription pool, then
 * committed changes per second through the one poller, with N subscribers spread over
 * rooms by a `room_id=eq.<room>` filter — on the plain table and on the RLS table
 * (each room's subscribers share claims, so one RLS check per change and room).
 *
 *   npx tsx bench/db-changes.ts [--subs 1000,10000] [--rooms 100] [--changes 2000]
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { startDatabase, type ChangeEvent } from '../src/server/db/index.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

function percentile(sorted: number[], q: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : NaN;
}

const WAIT_LIMIT_MS = 60_000;

async function run(
  table: 'bench_open_messages' | 'bench_messages',
  subs: number,
  rooms: number,
  changes: number,
) {
  const db = await startDatabase({ dbPool: 1, subsPoolSize: 4, queueTargetMs: 60_000 });
  const sql = new pg.Pool({ connectionString: db.connectionString(), max: 4 });
  let deliveredIds = 0;
  let events = 0;
  const latencies: number[] = [];
  db.onChange((e: ChangeEvent) => {
    events++;
    deliveredIds += e.subscriptionIds.length;
    const sentAt = e.data.record?.sent_at;
    if (typeof sentAt === 'number') latencies.push(Date.now() - sentAt);
  });
  try {
    // Subscribe: 2 × pool callers keep the subscription pool busy.
    const t0 = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < subs) {
          const i = next++;
          const room = i % rooms;
          await db.subscribe({
            subscriptionId: randomUUID(),
            claims: { role: 'authenticated', exp: 4_000_000_000, rooms: [room] },
            binding: { event: 'INSERT', schema: 'public', table, filter: `room_id=eq.${room}` },
          });
        }
      }),
    );
    const subsPerS = subs / ((performance.now() - t0) / 1000);

    // Changes: one row per transaction from 4 connections, as fast as they go.
    const expectedIds = changes * (subs / rooms);
    const t1 = performance.now();
    let sent = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (sent < changes) {
          const i = sent++;
          await sql.query(`insert into ${table} (room_id, body, sent_at) values ($1, 'x', $2)`, [
            i % rooms,
            Date.now(),
          ]);
        }
      }),
    );
    const insertS = (performance.now() - t1) / 1000;
    const deadline = Date.now() + WAIT_LIMIT_MS;
    while (deliveredIds < expectedIds && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    const totalS = (performance.now() - t1) / 1000;
    latencies.sort((a, b) => a - b);
    return {
      table,
      subs,
      rooms,
      subsPerS,
      insertsPerS: changes / insertS,
      changesPerS: events / totalS,
      idsPerS: deliveredIds / totalS,
      complete: deliveredIds === expectedIds,
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
      lastPollMs: db.stats().lastPollMs,
    };
  } finally {
    await sql.end();
    await db.stop();
  }
}

export async function main(): Promise<void> {
  const subsList = arg('subs', '1000,10000').split(',').map(Number);
  const rooms = Number(arg('rooms', '100'));
  const changes = Number(arg('changes', '2000'));
  const rows = [];
  for (const table of ['bench_open_messages', 'bench_messages'] as const) {
    for (const subs of subsList) rows.push(await run(table, subs, rooms, changes));
  }
  console.log(
    '| table | subscriptions | subscribe/s | inserts/s offered | changes/s delivered | subscription ids/s | all delivered | commit→onChange p50 ms | p99 ms |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---|---:|---:|');
  for (const r of rows) {
    console.log(
      `| ${r.table}${r.table === 'bench_messages' ? ' (RLS)' : ''} | ${r.subs} | ${r.subsPerS.toFixed(0)} | ${r.insertsPerS.toFixed(0)} | ` +
        `${r.changesPerS.toFixed(0)} | ${r.idsPerS.toFixed(0)} | ${r.complete ? 'yes' : 'no'} | ${r.p50.toFixed(0)} | ${r.p99.toFixed(0)} |`,
    );
  }
}

await main();
