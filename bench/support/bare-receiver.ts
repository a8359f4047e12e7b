/**
 * The bare receiver: plain `ws` clients that only count messages and read `t` (the cheapest
 * thing any load tool must do), plus one sender on the open-model schedule. It is the
 * yardstick for rtcap's own receive path.
 * Run: npx tsx bench/support/bare-receiver.ts URL CONNECTIONS RATE DURATION_S
 */
import type WebSocket from 'ws';
import { openBareMember } from './bare-join.js';
import { performance } from 'node:perf_hooks';

const [url, connsArg, rateArg, durArg] = process.argv.slice(2);
const connections = Number(connsArg);
const rate = Number(rateArg);
const durationS = Number(durArg);
const now = () => performance.timeOrigin + performance.now();
const topic = 'realtime:bench';
const T_KEY = Buffer.from('"t":');

let received = 0;
let latencySamples: number[] = [];
let sampleEvery = 0;
const startCpu = { v: process.cpuUsage() };

const open = () => openBareMember(url, topic);

async function main() {
  const socks: WebSocket[] = [];
  // Join in batches of 50 so the ramp does not stampede the server.
  for (let i = 0; i < connections; i += 50) {
    socks.push(...(await Promise.all(Array.from({ length: Math.min(50, connections - i) }, open))));
  }
  const sender = socks[0];
  for (const ws of socks.slice(1)) {
    ws.on('message', (data: Buffer) => {
      received++;
      const i = data.indexOf(T_KEY);
      if (i >= 0 && ++sampleEvery % 64 === 0) {
        let end = i + 4;
        while (end < data.length && data[end] !== 0x2c && data[end] !== 0x7d) end++;
        latencySamples.push(now() - Number(data.toString('latin1', i + 4, end)));
      }
    });
  }
  const total = Math.floor(rate * durationS);
  const start = now() + 200;
  let wallStart = now();
  setTimeout(() => {
    startCpu.v = process.cpuUsage();
    wallStart = now();
  }, 200);
  let k = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const t = now();
      while (k < total && start + (k * 1000) / rate <= t) {
        const sched = start + (k * 1000) / rate;
        sender.send(
          JSON.stringify({
            topic,
            event: 'broadcast',
            payload: { type: 'broadcast', event: 'bench', payload: { id: k, s: 0, t: sched } },
            ref: String(k),
            join_ref: '1',
          }),
        );
        k++;
      }
      if (k < total) setTimeout(tick, Math.max(0, start + (k * 1000) / rate - now()));
      else resolve();
    };
    setTimeout(tick, 200);
  });
  // CPU over the send window only, as rtcap reports its own (the steady state).
  const cpu = process.cpuUsage(startCpu.v);
  const wallS = (now() - wallStart) / 1000;
  // Deliveries/s by receive time over the send window, as rtcap counts its rate (docs/FIGURES.md).
  const receivedInWindow = received;
  // Drain by rtcap's rule and the ceiling bench's load.drain (10 s): stop when a second passes
  // without a receipt, at most 10 s, so both are held to the same delivery standard.
  let last = -1;
  for (let i = 0; i < 10 && received !== last; i++) {
    last = received;
    await new Promise((r) => setTimeout(r, 1000));
  }
  latencySamples = latencySamples.sort((a, b) => a - b);
  const pct = (p: number) =>
    latencySamples.length
      ? latencySamples[
          Math.min(latencySamples.length - 1, Math.floor((p / 100) * latencySamples.length))
        ]
      : null;
  const expected = total * (connections - 1);
  process.stdout.write(
    JSON.stringify({
      expected,
      received,
      delivery: received / expected,
      delivered_per_s: receivedInWindow / wallS,
      cpu_pct: ((cpu.user + cpu.system) / 1000 / (wallS * 1000)) * 100,
      p50_ms: pct(50),
      p99_ms: pct(99),
      rss_mb: process.memoryUsage.rss() / 1048576,
    }) + '\n',
  );
  for (const ws of socks) ws.terminate();
  process.exit(0);
}

main().catch((e) => {
  process.stderr.write(String(e) + '\n');
  process.exit(1);
});
