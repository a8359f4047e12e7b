/**
 * What reading one server frame costs: ws's own receive path — its Receiver
 * (a Writable stream) fed each socket chunk, a 'message' event re-emitted by the WebSocket —
 * beside rtcap's FrameReader (src/client/frame-reader.ts) fed the same chunks. Chunks hold one
 * frame (a receiver keeping up: each read returns one frame) or 16 (a backlog: each read returns
 * many). Frames are rtcap's v1 broadcast of a 64-byte stamp payload. Both run in the same
 * process, alternating round by round, best of 9 rounds; every 1,000 chunks the loop yields
 * to the event loop, as a socket's reads do, so ws's deferred write callbacks run inside the
 * timing. Figures are ns per frame; compare the two within one run.
 * Run: npx tsx bench/frame-reader.ts
 */
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { FrameReader } from '../src/client/frame-reader.js';
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
/** A server text frame (FIN, no mask) with a 7- or 16-bit length. */
const frame = Buffer.concat([
  payload.length < 126
    ? Buffer.from([0x81, payload.length])
    : Buffer.from([0x81, 126, payload.length >> 8, payload.length & 0xff]),
  payload,
]);
// ws's Receiver, the class its WebSocket feeds socket chunks to (not in @types/ws).
const Receiver = (createRequire(import.meta.url)('ws') as { Receiver: unknown }).Receiver as new (
  o: object,
) => import('node:stream').Writable;
const FRAMES = 400_000;
let sink = 0;

type Feed = (chunk: Buffer) => void;

function wsPath(): Feed {
  const receiver = new Receiver({ skipUTF8Validation: true, isServer: false });
  const socketSide = new EventEmitter();
  receiver.on('message', (data: Buffer, isBinary: boolean) =>
    socketSide.emit('message', data, isBinary),
  );
  socketSide.on('message', (data: Buffer) => (sink += data.length));
  return (chunk) => void receiver.write(chunk);
}

function ourPath(): Feed {
  const reader = new FrameReader(
    { message: (data) => (sink += data.length), ping: () => {} },
    100 * 1024 * 1024,
  );
  return (chunk) => void reader.feed(chunk);
}

async function round(feed: Feed, framesPerChunk: number): Promise<number> {
  // Fresh copies, as each socket read is a fresh Buffer.
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

async function main() {
  process.stdout.write(
    `| frames per socket chunk | ws Receiver + 'message' emit, ns/frame | FrameReader, ns/frame | FrameReader ÷ ws |\n|---|---|---|---|\n`,
  );
  for (const per of [1, 16]) {
    const best = [Infinity, Infinity];
    for (let r = 0; r < 9; r++) {
      best[0] = Math.min(best[0], await round(wsPath(), per));
      best[1] = Math.min(best[1], await round(ourPath(), per));
    }
    process.stdout.write(
      `| ${per} | ${best[0].toFixed(0)} | ${best[1].toFixed(0)} | ${(best[1] / best[0]).toFixed(2)} |\n`,
    );
  }
  if (sink === 0) process.stdout.write('nothing read\n');
}

void main();
