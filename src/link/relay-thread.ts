/**
 * Entry point of a relay thread (src/link/relay-threads.ts starts them): one relay on an event
 * loop of its own, so that the coordinator's work (merging a step's collections can take it
 * hundreds of milliseconds) never holds a chunk past its due time.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { startRelay, type RelayOptions } from './relay.js';

export type FromRelayThread =
  | { type: 'listening'; host: string; port: number }
  | { type: 'closed'; lateMaxMs: number }
  | { type: 'failed'; message: string };

const port = parentPort;
if (port) {
  startRelay(workerData as RelayOptions).then(
    (relay) => {
      port.postMessage({ type: 'listening', host: relay.host, port: relay.port });
      port.on('message', (m: { type: 'stop' }) => {
        if (m.type !== 'stop') return;
        const lateMaxMs = relay.lateMaxMs();
        void relay.close().then(() => {
          port.postMessage({ type: 'closed', lateMaxMs } satisfies FromRelayThread);
          port.close();
        });
      });
    },
    (e: Error) => port.postMessage({ type: 'failed', message: e.message }),
  );
}
