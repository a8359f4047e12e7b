/**
 * A minimal, fast Phoenix v1 fan-out server for benchmarking the *generator*: it must not be
 * the bottleneck, so each broadcast is framed once and the same bytes are written to every
 * member's socket. Joins get the Supabase-shaped ok reply; heartbeats are answered.
 * Run: npx tsx bench/support/blaster.ts  → prints {"port":N} on stdout.
 */
import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

function frameText(payload: Buffer): Buffer {
  const len = payload.length;
  let header: Buffer;
  if (len < 126) header = Buffer.from([0x81, len]);
  else if (len < 65536) {
    header = Buffer.alloc(4);
    header[0] = 0x81;
    header[1] = 126;
    header.writeUInt16BE(len, 2);
  } else {
    header = Buffer.alloc(10);
    header[0] = 0x81;
    header[1] = 127;
    header.writeBigUInt64BE(BigInt(len), 2);
  }
  return Buffer.concat([header, payload]);
}

const http = createServer();
const wss = new WebSocketServer({
  server: http,
  perMessageDeflate: false,
  skipUTF8Validation: true,
});
const topics = new Map<string, Set<WebSocket>>();
let deliveries = 0;

wss.on('connection', (ws) => {
  const joined = new Set<string>();
  ws.on('message', (data: Buffer) => {
    const f = JSON.parse(data.toString()) as {
      topic: string;
      event: string;
      payload: unknown;
      ref: string | null;
      join_ref?: string | null;
    };
    if (f.event === 'phx_join') {
      joined.add(f.topic);
      let set = topics.get(f.topic);
      if (!set) topics.set(f.topic, (set = new Set()));
      set.add(ws);
      ws.send(
        JSON.stringify({
          topic: f.topic,
          event: 'phx_reply',
          payload: { status: 'ok', response: { postgres_changes: [] } },
          ref: f.ref,
        }),
      );
      return;
    }
    if (f.event === 'heartbeat') {
      ws.send(
        JSON.stringify({
          topic: 'phoenix',
          event: 'phx_reply',
          payload: { status: 'ok', response: {} },
          ref: f.ref,
        }),
      );
      return;
    }
    if (f.event === 'broadcast' && joined.has(f.topic)) {
      const frame = frameText(
        Buffer.from(
          JSON.stringify({ topic: f.topic, event: 'broadcast', payload: f.payload, ref: null }),
        ),
      );
      for (const m of topics.get(f.topic) ?? []) {
        if (m === ws) continue;
        // Same bytes to every member: framing once is what makes this server cheap.
        (m as unknown as { _socket: Socket })._socket.write(frame);
        deliveries++;
      }
    }
  });
  ws.on('close', () => {
    for (const t of joined) topics.get(t)?.delete(ws);
  });
});

http.listen(0, '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ port: (http.address() as { port: number }).port }) + '\n');
});
setInterval(() => process.stderr.write(`blaster deliveries ${deliveries}\n`), 10_000).unref();
process.on('SIGTERM', () => process.exit(0));
