/**
 * Entry of one `rtcap serve --workers N` process (src/server/cluster.ts forks it).
 */
import { runWorker } from './cluster.js';

runWorker().catch((e) => {
  process.stderr.write(`rtcap serve worker: ${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
