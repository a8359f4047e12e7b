/**
 * The latency-overhead bench's bare receiver (forked with IPC): plain `ws` clients on one topic
 * with ws's own message event, one of them the sender on the open-model schedule, keeping for
 * each message (stamp `id`) its first receive time over all receivers, taken first thing in the
 * message handler: what rtcap's first-receipt latency rests on, with nothing else done. It sends
 * what rtcap sends: the same payload size (rtcap's stamp encoder, padding included), the same
 * broadcast envelope and event.
 *
 * Joins, then sends RATE msg/s for DURATION_S from the parent's
 * `{ type: 'go', startMonoMs }` (the first send's time on CLOCK_MONOTONIC, in ms, so the parent
 * can place this sender's schedule between rtcap's), waits for the last deliveries (a quiet
 * second, at most 5 s) and answers `{ type: 'result', expected, received, first, originMs,
 * nice, cpuMs }` (first: id → receive time, epoch ms; nice: this process's niceness at the end;
 * cpuMs: user + system CPU of the process from go to the end).
 * Run: forked by bench/latency-overhead.ts with URL TOPIC CONNECTIONS RATE DURATION_S
 * PAYLOAD_BYTES.
 */
import { getPriority } from 'node:os';
import type WebSocket from 'ws';
import { openBareMember } from './bare-join.js';
import { nowMs } from '../../src/measure/clock.js';
import { StampEncoder } from '../../src/protocol/stamp.js';
import { monotonicOriginMs } from './monotonic-origin.js';

const [url, topic, connsArg, rateArg, durArg, bytesArg] = process.argv.slice(2);
const connections = Number(connsArg);
const rate = Number(rateArg);
const durationS = Number(durArg);
const encoder = new StampEncoder(Number(bytesArg ?? '64'));
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
  const go = await new Promise<{ startMonoMs: number }>((r) => process.once('message', r));
  const cpuStart = process.cpuUsage();
  const total = Math.floor(rate * durationS);
  await sendAll(socks[0], total, go.startMonoMs + monotonicOriginMs());
  let last = -1;
  for (let i = 0; i < 5 && received !== last; i++) {
    last = received;
    await new Promise((r) => setTimeout(r, 1000));
  }
  const cpu = process.cpuUsage(cpuStart);
  post({
    type: 'result',
    expected: total * (connections - 1),
    received,
    first,
    originMs: monotonicOriginMs(),
    nice: getPriority(),
    cpuMs: (cpu.user + cpu.system) / 1000,
  });
  for (const ws of socks) ws.terminate();
  setTimeout(() => process.exit(0), 100);
}

/** Message k is due k/rate after `startMs` (epoch ms); late ones go at once, none skipped. */
function sendAll(sender: WebSocket, total: number, startMs: number): Promise<void> {
  let k = 0;
  return new Promise((resolve) => {
    const tick = () => {
      const t = nowMs();
      while (k < total && startMs + (k * 1000) / rate <= t) {
        const due = startMs + (k * 1000) / rate;
        const payload = { type: 'broadcast', event: 'bench', payload: encoder.payload(k, 0, due) };
        sender.send(
          JSON.stringify({ topic, event: 'broadcast', payload, ref: String(k), join_ref: '1' }),
        );
        k++;
      }
      if (k < total) setTimeout(tick, Math.max(0, startMs + (k * 1000) / rate - nowMs()));
      else resolve();
    };
    tick();
  });
}

main().catch((e) => {
  process.stderr.write(String(e) + '\n');
  process.exit(1);
});
