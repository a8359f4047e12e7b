/**
 * What reading one frame costs, at both ends: ws's own receive path — its Receiver (a Writable
 * stream) fed each socket chunk, a 'message' event re-emitted by the WebSocket — beside rtcap's
 * reader fed the same chunks. A client's end reads server frames (unmasked; rtcap's FrameReader,
 * src/client/frame-reader.ts); the built-in server's end reads client frames (masked, unmasked in
 * place; its ClientFrameReader, src/server/frame-reader.ts). Chunks hold one frame (a receiver
 * keeping up: each read returns one frame) or 16 (a backlog: each read returns many). Frames are
 * rtcap's v1 broadcast of a 64-byte stamp payload. Each end runs in its own process, as in use
 * (a generator process reads only server frames, a server only client frames); in it ws and
 * rtcap's reader alternate round by round, best of 9 rounds; every 1,000 chunks the loop yields
 * to the event loop, as a socket's reads do, so ws's deferred write callbacks run inside the
 * timing. Figures are ns per frame; compare the two within one run.
 * Run: npx tsx bench/frame-reader.ts       (one end only: ... frame-reader.ts client|server)
 */
import { spawnSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { FrameReader } from '../src/client/frame-reader.js';
import { ClientFrameReader } from '../src/server/frame-reader.js';
import { encodeV1 } from '../src/protocol/frame-encode.js';
import { StampEncoder } from '../src/protocol/stamp.js';

const payload = Buffer.from(
  encodeV1(
    {
      joinRef: null,
      ref: null,
      topic: 'realtime:bench',
      event: 'broadcast',
      payload: {
        type: 'broadcast',
        event: 'bench',
        payload: new StampEncoder(64).payload(12345, 0, 1764460000123.456),
      },
    },
    'server',
  ),
);
const KEY = Buffer.from([0x37, 0xfa, 0x21, 0x3d]);
/** A text frame (FIN) with a 7- or 16-bit length; masked with KEY as a client's, or not. */
function textFrame(masked: boolean): Buffer {
  const m = masked ? 0x80 : 0;
  const head =
    payload.length < 126
      ? Buffer.from([0x81, m | payload.length])
      : Buffer.from([0x81, m | 126, payload.length >> 8, payload.length & 0xff]);
  if (!masked) return Buffer.concat([head, payload]);
  return Buffer.concat([head, KEY, Buffer.from(payload.map((b, i) => b ^ KEY[i & 3]))]);
}
// ws's Receiver, the class its WebSocket feeds socket chunks to (not in @types/ws).
const Receiver = (createRequire(import.meta.url)('ws') as { Receiver: unknown }).Receiver as new (
  o: object,
) => import('node:stream').Writable;
const FRAMES = 400_000;
let sink = 0;

type Feed = (chunk: Buffer) => void;

function wsPath(isServer: boolean): Feed {
  const receiver = new Receiver({ skipUTF8Validation: true, isServer });
  const socketSide = new EventEmitter();
  receiver.on('message', (data: Buffer, isBinary: boolean) =>
    socketSide.emit('message', data, isBinary),
  );
  socketSide.on('message', (data: Buffer) => (sink += data.length));
  return (chunk) => void receiver.write(chunk);
}

function clientPath(): Feed {
  const reader = new FrameReader(
    { message: (data) => (sink += data.length), ping: () => {} },
    100 * 1024 * 1024,
  );
  return (chunk) => void reader.feed(chunk);
}

function serverPath(): Feed {
  const reader = new ClientFrameReader((data) => (sink += data.length), 100 * 1024 * 1024);
  return (chunk) => void reader.feed(chunk);
}

async function round(feed: Feed, frame: Buffer, framesPerChunk: number): Promise<number> {
  // Fresh copies, as each socket read is a fresh Buffer (and a masked one is unmasked in place).
  const chunk = Buffer.concat(Array.from({ length: framesPerChunk }, () => frame));
  const chunks = FRAMES / framesPerChunk;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < chunks; i++) {
    feed(Buffer.from(chunk));
    if (i % 1000 === 999) await new Promise((r) => setImmediate(r));
  }
  await new Promise((r) => setImmediate(r));
  return Number(process.hrtime.bigint() - t0) / FRAMES;
}

const ENDS: Record<string, { name: string; masked: boolean; ours: () => Feed }> = {
  client: { name: 'client (server frames)', masked: false, ours: clientPath },
  server: { name: 'server (client frames, masked)', masked: true, ours: serverPath },
};

/** The table rows of one end. */
async function measure(end: string): Promise<void> {
  const { name, masked, ours } = ENDS[end];
  const frame = textFrame(masked);
  for (const per of [1, 16]) {
    const best = [Infinity, Infinity];
    for (let r = 0; r < 9; r++) {
      best[0] = Math.min(best[0], await round(wsPath(masked), frame, per));
      best[1] = Math.min(best[1], await round(ours(), frame, per));
    }
    process.stdout.write(
      `| ${name} | ${per} | ${best[0].toFixed(0)} | ${best[1].toFixed(0)} | ${(best[1] / best[0]).toFixed(2)} |\n`,
    );
  }
  if (sink === 0) process.stdout.write('nothing read\n');
}

async function main() {
  const end = process.argv[2];
  if (end !== undefined) {
    if (!(end in ENDS)) throw new Error(`unknown end ${end}: client or server`);
    return measure(end);
  }
  process.stdout.write(
    `| reading end | frames per socket chunk | ws Receiver + 'message' emit, ns/frame | rtcap's reader, ns/frame | rtcap ÷ ws |\n|---|---|---|---|---|\n`,
  );
  for (const e of Object.keys(ENDS)) {
    const args = ['--import', 'tsx', fileURLToPath(import.meta.url), e];
    const r = spawnSync(process.execPath, args, { stdio: 'inherit', timeout: 900_000 });
    if (r.status !== 0)
      throw new Error(`bench/frame-reader.ts ${e}: exited ${r.status ?? r.signal}`);
  }
}

void main();
