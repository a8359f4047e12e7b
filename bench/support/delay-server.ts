/**
 * The latency-overhead bench's server, in a process of its own (forked with IPC): the
 * known-answer test server told to write every broadcast `DELAY_MS` after its push arrived
 * (test/support/phoenix-test-server.ts). For every push it keeps the server's own first-write
 * time and the push's stamp (`id`, and `t`: its scheduled send time), per topic: what any
 * receiver's first receipt of that message is compared with.
 *
 * Messages to the parent: `{ type: 'listening', url }` once, `{ type: 'firstWrite', topic,
 * monoMs }` at the first write of each topic since the last report (monoMs: its time on
 * CLOCK_MONOTONIC, ms), `{ type: 'report', writes }` (topic →
 * id → [first write, t] in epoch ms, then forgotten) when asked with `{ type: 'report' }`.
 * `{ type: 'stop' }` ends it.
 * Run: forked by bench/latency-overhead.ts with the argument DELAY_MS.
 */
import { nowMs } from '../../src/measure/clock.js';
import { monotonicOriginMs } from './monotonic-origin.js';
import { startTestServer } from '../../test/support/phoenix-test-server.js';

const delayMs = Number(process.argv[2] ?? '25');
let writes = new Map<string, Record<number, [number, number]>>();
const post = (m: unknown) => process.send?.(m);

/** The stamp (`id`, `t`) of a v1/v2 JSON broadcast push's payload; null when it has none. */
function stampOf(payload: unknown): { id: number; t: number } | null {
  const inner = (payload as { payload?: { id?: unknown; t?: unknown } } | null)?.payload;
  if (typeof inner?.t !== 'number' || typeof inner.id !== 'number') return null;
  return { id: inner.id, t: inner.t };
}

const server = await startTestServer({
  delayMs,
  onFirstWrite: (topic, payload, atMs) => {
    const stamp = stampOf(payload);
    if (stamp === null) return;
    let byId = writes.get(topic);
    if (!byId) {
      writes.set(topic, (byId = {}));
      post({ type: 'firstWrite', topic, monoMs: atMs - monotonicOriginMs() });
    }
    byId[stamp.id] = [atMs, stamp.t];
  },
});

process.on('message', (m: { type: string }) => {
  if (m.type === 'clock') {
    post({ type: 'clock', nowMs: nowMs() });
  } else if (m.type === 'report') {
    post({ type: 'report', writes: Object.fromEntries(writes), originMs: monotonicOriginMs() });
    writes = new Map();
  } else if (m.type === 'stop') {
    void server.close().then(() => process.exit(0));
  }
});
process.on('disconnect', () => process.exit(0));
post({ type: 'listening', url: server.url });
