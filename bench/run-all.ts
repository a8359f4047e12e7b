/**
 * `npm run bench`: the micro-benchmarks of rtcap's own hot paths (frame reader, stamp scan and
 * ledger, acked-send bookkeeping, a heartbeat's frame and reply), one after another, each in its
 * own process (no JIT state shared). They need nothing running and took 1½ minutes in all at
 * load 5 on a 2-core machine (2026-12-02; the heartbeat one, added since, 36 s at load 16); their
 * figures are ns per operation, to compare within one run (shared machines are noisy).
 *
 * The system benchmarks (generator ceiling, server fan-out, databases, 30k connections) take
 * minutes, start servers and take arguments: they are listed, with the commands and figures,
 * in docs/PERFORMANCE.md, and run one by one.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const MICRO = ['frame-reader.ts', 'hotpath.ts', 'ack-tracker.ts', 'heartbeat-client.ts'];

let failed = 0;
for (const file of MICRO) {
  process.stdout.write(`\n## bench/${file}\n\n`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(here, file)], {
    stdio: 'inherit',
    timeout: 300_000,
  });
  if (r.status !== 0) {
    failed++;
    process.stderr.write(`bench/${file}: exited ${r.status ?? r.signal}\n`);
  }
}
process.stdout.write(
  '\nSystem benchmarks (minutes each, with arguments): see docs/PERFORMANCE.md.\n',
);
process.exitCode = failed > 0 ? 1 : 0;
