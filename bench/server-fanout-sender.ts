/**
 * The sender of bench/server-fanout.ts in its own process, so its schedule does not wait on
 * the receivers' event loop: RATE broadcasts/s for DURATION_S on the open model (it catches
 * up to the schedule every millisecond), then prints {"sent":N}.
 * Run: npx tsx bench/server-fanout-sender.ts PORT TOKEN TOPIC RATE DURATION_S
 */
import WebSocket from 'ws';

const [port, token, topic, rateArg, durArg] = process.argv.slice(2);
const rate = Number(rateArg);
const durationS = Number(durArg);
const ws = new WebSocket(`ws://127.0.0.1:${port}/socket/websocket?vsn=2.0.0&apikey=${token}`, {
  perMessageDeflate: false,
});
await new Promise((r) => ws.once('open', r));
ws.send(JSON.stringify(['1', '1', topic, 'phx_join', { config: { broadcast: { self: false } } }]));
await new Promise((r) => ws.once('message', r));
let sent = 0;
const t0 = performance.now();
const total = Math.floor(durationS * rate);
await new Promise<void>((resolve) => {
  const timer = setInterval(() => {
    const due = Math.min(total, Math.floor(((performance.now() - t0) / 1000) * rate));
    // i has six digits, so every delivered frame has the same length.
    while (sent < due)
      ws.send(
        JSON.stringify([
          '1',
          null,
          topic,
          'broadcast',
          { event: 'b', payload: { i: 100000 + (sent++ % 900000) } },
        ]),
      );
    if (sent >= total) {
      clearInterval(timer);
      resolve();
    }
  }, 1);
});
process.stdout.write(`${JSON.stringify({ sent, elapsedS: (performance.now() - t0) / 1000 })}\n`);
ws.close();
