/**
 * The relays of a run, one per generator process, each in a worker thread of the coordinator
 * (src/link/relay-thread.ts). Threads go with the coordinator's process, so a coordinator killed
 * with SIGKILL leaves no relay behind (its generator processes then lose their connections and
 * exit on the lost IPC channel).
 */
import { Worker } from 'node:worker_threads';
import { distEntry } from '../util/paths.js';
import type { RelayOptions } from './relay.js';
import type { FromRelayThread } from './relay-thread.js';

/** How long a relay thread gets to start listening, and to close. */
const THREAD_WAIT_MS = 10_000;

export interface RelayAddress {
  host: string;
  port: number;
}

export interface RelayThreads {
  /** Relay i is generator process i's. */
  addresses: RelayAddress[];
  /** Closes every relay; the latest any of them released a chunk after it was due (ms). */
  stop(): Promise<number>;
}

function waitFor<T extends FromRelayThread['type']>(
  w: Worker,
  type: T,
): Promise<Extract<FromRelayThread, { type: T }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`relay thread: no '${type}' within ${THREAD_WAIT_MS} ms`)),
      THREAD_WAIT_MS,
    );
    const onMessage = (m: FromRelayThread) => {
      if (m.type === 'failed') reject(new Error(`relay thread: ${m.message}`));
      else if (m.type !== type) return;
      else resolve(m as Extract<FromRelayThread, { type: T }>);
      clearTimeout(timer);
      w.off('message', onMessage);
    };
    w.on('message', onMessage);
    w.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

export async function startRelayThreads(count: number, o: RelayOptions): Promise<RelayThreads> {
  const entry = distEntry('link/relay-thread.js');
  const workers: Worker[] = [];
  const stopAll = async (): Promise<number> => {
    const late = await Promise.all(
      workers.map(async (w) => {
        const closed = waitFor(w, 'closed').catch(() => null);
        w.postMessage({ type: 'stop' });
        const m = await closed;
        await w.terminate();
        return m?.lateMaxMs ?? 0;
      }),
    );
    return Math.max(0, ...late);
  };
  try {
    const addresses: RelayAddress[] = [];
    for (let i = 0; i < count; i++) {
      const w = new Worker(entry, { workerData: o });
      workers.push(w);
      const m = await waitFor(w, 'listening');
      addresses.push({ host: m.host, port: m.port });
    }
    return { addresses, stop: stopAll };
  } catch (e) {
    await Promise.all(workers.map((w) => w.terminate()));
    throw e;
  }
}
