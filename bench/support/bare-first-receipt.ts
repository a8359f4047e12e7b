/**
 * The latency-overhead bench's bare receiver (forked with IPC): plain `ws` clients on one topic
 * with ws's own message event, one of them the sender on the open-model schedule, keeping for
 * each message (stamp `id`) its first receive time over all receivers, taken first thing in the
 * message handler: what rtcap's first-receipt latency rests on, with nothing else done.
 *
 * Joins, then sends RATE msg/s for DURATION_S from the parent's `{ type: 'go' }`, waits for the
 * last deliveries (a quiet second, at most 5 s) and answers
 * `{ type: 'result', expected, received, first }` (first: id → receive time, epoch ms).
 * Run: forked by bench/latency-overhead.ts with URL TOPIC CONNECTIONS RATE DURATION_S.
 */
import type WebSocket from 'ws';
import { openBareMember } from './bare-join.js';
import { nowMs } from '../../src/measure/clock.js';
import { monotonicOriginMs } from './monotonic-origin.js';

const [url, topic, connsArg, rateArg, durArg] = process.argv.slice(2);
const connections = Number(connsArg);
const rate = Number(rateArg);
const durationS = Number(durArg);
const ID_KEY = Buffer.from('"id":');
const post = (m: unknown) => process.send?.(m);

/** The number after `key` in a frame's bytes; NaN when absent. */
function numberAfter(data: Buffer, key: Buffer): number {
  const i = data.indexOf(key);
  if (i < 0) return NaN;
  let end = i + key.length;
  while (end < data.length && data[end] !== 0x2c && data[end] !== 0x7d) end++;
  return Number(data.toString('latin1', i + key.length, end));
}

const open = () => openBareMember(url, topic);

const first: Record<number, number> = {};
let received = 0;

async function main(): Promise<void> {
  const socks: WebSocket[] = [];
  for (let i = 0; i < connections; i += 50) {
    const n = Math.min(50, connections - i);
    socks.push(...(await Promise.all(Array.from({ length: n }, open))));
  }
  for (const ws of socks.slice(1)) {
    ws.on('message', (data: Buffer) => {
      const recvMs = nowMs();
      received++;
      const id = numberAfter(data, ID_KEY);
      if (!(id in first)) first[id] = recvMs;
    });
  }
  post({ type: 'joined' });
  await new Promise<void>((r) => process.once('message', () => r()));
  const total = Math.floor(rate * durationS);
  await sendAll(socks[0], total);
  let last = -1;
  for (let i = 0; i < 5 && received !== last; i++) {
    last = received;
    await new Promise((r) => setTimeout(r, 1000));
  }
  post({
    type: 'result',
    expected: total * (connections - 1),
    received,
    first,
    originMs: monotonicOriginMs(),
  });
  for (const ws of socks) ws.terminate();
  setTimeout(() => process.exit(0), 100);
}

/** Message k is due k/rate after the start; late ones go at once, none skipped. */
function sendAll(sender: WebSocket, total: number): Promise<void> {
  const start = nowMs();
  let k = 0;
  return new Promise((resolve) => {
    const tick = () => {
      const t = nowMs();
      while (k < total && start + (k * 1000) / rate <= t) {
        const due = start + (k * 1000) / rate;
        const payload = { type: 'broadcast', event: 'bench', payload: { id: k, s: 0, t: due } };
        sender.send(
          JSON.stringify({ topic, event: 'broadcast', payload, ref: String(k), join_ref: '1' }),
        );
        k++;
      }
      if (k < total) setTimeout(tick, Math.max(0, start + (k * 1000) / rate - nowMs()));
      else resolve();
    };
    tick();
  });
}

main().catch((e) => {
  process.stderr.write(String(e) + '\n');
  process.exit(1);
});
