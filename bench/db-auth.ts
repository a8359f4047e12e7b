/**
 * Authorisation checks per second of the built-in server's tenant database
 * (src/server/db, docs/PROTOCOL.md §6.2–6.4) at db_pool 1, 4 and 10 with the default policy
 * (`room-*` topics), plus the seed-002 shape: db_pool 10 with an 80 ms policy, whose
 * ceiling should be ≈ 10 ÷ 80 ms = 125/s.
 *
 * Closed loop: 2 × pool callers keep every connection busy for `--seconds` (default 5);
 * each call is one read check with presence (a private join) or one write check (a
 * private channel's first broadcast). Bounded by time and by a call cap.
 *
 *   npx tsx bench/db-auth.ts [--seconds 5] [--pools 1,4,10] [--slow-ms 80]
 */
import { startDatabase } from '../src/server/db/index.js';
import type { ServerDb } from '../src/server/db/server-db.js';

interface Row {
  label: string;
  pool: number;
  kind: 'read' | 'write';
  checksPerS: number;
  p50Ms: number;
  p99Ms: number;
  refused: number;
}

const MAX_CALLS = 2_000_000;

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function measure(
  db: ServerDb,
  label: string,
  pool: number,
  kind: 'read' | 'write',
  topic: string,
  seconds: number,
): Promise<Row> {
  const ctx = (i: number) => ({
    role: 'authenticated',
    subtopic: `${topic}${i % 100}`,
    claims: { role: 'authenticated', sub: `user-${i}`, exp: Math.floor(Date.now() / 1000) + 3600 },
    headers: { host: 'realtime-dev.localhost' },
  });
  const latencies: number[] = [];
  let refused = 0;
  let calls = 0;
  const deadline = performance.now() + seconds * 1000;
  const worker = async (w: number) => {
    while (performance.now() < deadline && calls < MAX_CALLS) {
      const i = calls++;
      const t0 = performance.now();
      try {
        if (kind === 'read') await db.authorizeRead(ctx(i + w), { presence: true });
        else await db.authorizeWrite(ctx(i + w), 'broadcast');
        latencies.push(performance.now() - t0);
      } catch {
        refused++;
      }
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: pool * 2 }, (_, w) => worker(w)));
  const elapsedS = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    label,
    pool,
    kind,
    checksPerS: latencies.length / elapsedS,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    refused,
  };
}

export async function main(): Promise<void> {
  const seconds = Number(arg('seconds', '5'));
  const pools = arg('pools', '1,4,10').split(',').map(Number);
  const slowMs = Number(arg('slow-ms', '80'));
  const base = await startDatabase({ dbPool: 1, subsPoolSize: 1, slowPolicyMs: slowMs });
  const rows: Row[] = [];
  try {
    for (const pool of pools) {
      // A queue target longer than the run: this measures throughput, not the trip (§6.4).
      const db = await startDatabase({
        databaseUrl: base.connectionString(),
        dbPool: pool,
        subsPoolSize: 1,
        queueTargetMs: 60_000,
      });
      try {
        await measure(db, 'warm-up', pool, 'read', 'room-', 1);
        rows.push(await measure(db, 'default policy', pool, 'read', 'room-', seconds));
        rows.push(await measure(db, 'default policy', pool, 'write', 'room-', seconds));
      } finally {
        await db.stop();
      }
    }
    const db = await startDatabase({
      databaseUrl: base.connectionString(),
      dbPool: 10,
      subsPoolSize: 1,
      queueTargetMs: 60_000,
    });
    try {
      rows.push(await measure(db, `slow policy ${slowMs} ms`, 10, 'read', 'slow-', seconds));
    } finally {
      await db.stop();
    }
  } finally {
    await base.stop();
  }
  console.log(
    '| policy | db_pool | check | checks/s | p50 ms | p99 ms | check time ms (pool ÷ rate) | refused |',
  );
  console.log('|---|---:|---|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    console.log(
      `| ${r.label} | ${r.pool} | ${r.kind === 'read' ? 'read (join, presence on)' : 'write (first broadcast)'} | ${r.checksPerS.toFixed(0)} | ` +
        `${r.p50Ms.toFixed(2)} | ${r.p99Ms.toFixed(2)} | ${((r.pool / r.checksPerS) * 1000).toFixed(2)} | ${r.refused} |`,
    );
  }
}

await main();
