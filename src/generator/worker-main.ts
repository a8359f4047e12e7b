/**
 * Entry point of a generator process, forked by the coordinator (src/load/pool.ts).
 */
import { GeneratorWorker } from './worker.js';
import type { FromWorker, ToWorker } from './ipc.js';
import { noteOpenFilesLimit } from '../client/classify.js';
import { readLimits } from './limits.js';

if (!process.send) {
  process.stderr.write('rtcap worker: must be started by the rtcap coordinator\n');
  process.exit(2);
}

// Past its open-file limit a process cannot read the limit any more: read it now, so its
// EMFILE failures name the number.
noteOpenFilesLimit(readLimits().openFilesPerProcess);

const post = (m: FromWorker) => {
  if (process.connected) process.send!(m);
};
const worker = new GeneratorWorker(post);

process.on('message', (m: ToWorker) => {
  try {
    worker.handle(m);
    if (m.type === 'stop') setTimeout(() => process.exit(0), 300).unref();
  } catch (e) {
    post({ type: 'fatal', worker: -1, message: (e as Error).stack ?? String(e) });
  }
});
// A Ctrl-C at the terminal reaches the whole process group; the coordinator decides when a
// generator stops (it still has to collect what this process measured).
process.on('SIGINT', () => undefined);
process.on('disconnect', () => {
  // The coordinator is gone: close sockets and leave.
  worker.stop();
  setTimeout(() => process.exit(0), 200).unref();
});
process.on('uncaughtException', (e) => {
  post({ type: 'fatal', worker: -1, message: e.stack ?? String(e) });
});
