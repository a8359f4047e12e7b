/**
 * Entry of one `rtcap serve --workers N` process (cluster/primary.ts forks it).
 */
import { runWorker } from './worker.js';

runWorker().catch((e) => {
  process.stderr.write(`rtcap serve worker: ${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
