/**
 * The bare idle client: plain `ws` clients that open and join N connections (batches of 50,
 * as bench/support/bare-receiver.ts), hold them for DURATION_S with no traffic, close them and
 * exit. The yardstick for rtcap's fixed cost of a run (bench/fixed-cost.ts):
 * what opening and joining the same connections costs with nothing else around it.
 * Plain JavaScript on purpose: rtcap runs compiled from dist/, so the yardstick must not pay a
 * TypeScript loader's start-up either.
 * Run: node bench/support/bare-idle.mjs URL CONNECTIONS DURATION_S
 */
import WebSocket from 'ws';

const [url, connsArg, durArg] = process.argv.slice(2);
const connections = Number(connsArg);
const durationS = Number(durArg);
const topic = 'realtime:bench';

/** @returns {Promise<WebSocket>} */
function open() {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url + (url.includes('?') ? '&' : '?') + 'vsn=1.0.0', {
      perMessageDeflate: false,
      skipUTF8Validation: true,
    });
    ws.once('error', reject);
    ws.once('open', () => {
      ws.once('message', () => resolve(ws)); // the join reply
      ws.send(
        JSON.stringify({
          topic,
          event: 'phx_join',
          payload: { config: { broadcast: { self: false } } },
          ref: '1',
          join_ref: '1',
        }),
      );
    });
  });
}

async function main() {
  const socks = [];
  for (let i = 0; i < connections; i += 50) {
    socks.push(...(await Promise.all(Array.from({ length: Math.min(50, connections - i) }, open))));
  }
  await new Promise((r) => setTimeout(r, durationS * 1000));
  process.stdout.write(JSON.stringify({ joined: socks.length }) + '\n');
  for (const ws of socks) ws.terminate();
  process.exit(0);
}

main().catch((e) => {
  process.stderr.write(String(e) + '\n');
  process.exit(1);
});
