/**
 * Start-up time of the built-in server's tenant database (src/server/db): embedded
 * PostgreSQL from the initdb template, migration, pools and replication slot, then stop.
 *
 *   npx tsx bench/db-startup.ts [--runs 5] [--no-template]
 */
import { startDatabase } from '../src/server/db/index.js';

export async function main(): Promise<void> {
  const i = process.argv.indexOf('--runs');
  const runs = i >= 0 ? Number(process.argv[i + 1]) : 5;
  const templateCache = !process.argv.includes('--no-template');
  const totals: number[] = [];
  for (let r = 0; r < Math.min(runs, 50); r++) {
    const lines: string[] = [];
    const t0 = performance.now();
    const db = await startDatabase({
      dbPool: 1,
      subsPoolSize: 1,
      templateCache,
      log: (l) => lines.push(l),
    });
    const startMs = performance.now() - t0;
    const t1 = performance.now();
    await db.stop();
    const stopMs = performance.now() - t1;
    totals.push(startMs);
    const s = db.startup!;
    const migrated = /migrated in (\d+) ms/.exec(lines.join('\n'))?.[1] ?? '0 (in the template)';
    console.log(
      `run ${r + 1}: ready in ${startMs.toFixed(0)} ms = ${s.fromTemplate ? 'template copy' : 'initdb'} ${s.prepareMs} + postgres start ${s.startMs} + connect ${s.connectMs} + migration ${migrated} + pools, slot; stop ${stopMs.toFixed(0)} ms`,
    );
  }
  totals.sort((a, b) => a - b);
  console.log(
    `median ready: ${totals[Math.floor(totals.length / 2)].toFixed(0)} ms over ${totals.length} runs`,
  );
}

await main();
