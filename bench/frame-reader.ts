/**
 * What reading one frame costs, at both ends. A client's end reads server frames (unmasked;
 * rtcap's FrameReader, src/client/frame-reader.ts); the built-in server's end reads client
 * frames (masked, unmasked in place; its ClientFrameReader, src/server/frame-reader.ts). Both are
 * src/protocol/ws-frame-reader.ts set by masking. Each end runs in its own process, as in use (a
 * generator process reads only server frames, a server only client frames).
 *
 * Without options: rtcap's reader beside ws's own receive path — its Receiver (a Writable
 * stream) fed each socket chunk, a 'message' event re-emitted by the WebSocket — fed the same
 * chunks of rtcap's v1 broadcast of a 64-byte stamp payload, one frame a chunk (a receiver
 * keeping up) or 16 (a backlog); the two alternate round by round, best of 9; every 1,000 chunks
 * the loop yields to the event loop, as a socket's reads do, so ws's deferred write callbacks run
 * inside the timing. Figures are ns per frame; compare the two within one run.
 *
 * `--before DIR`: the readers of another checkout (DIR, e.g. a `git worktree add --detach` of the
 * commit before a change, with node_modules linked) beside this checkout's, on realistic frames —
 * a heartbeat (the client's, or the server's reply), a broadcast of a 64-byte stamp (183 bytes
 * framed), one of 2 KB — one frame a chunk, 16 a chunk, and each frame cut in two chunks (its
 * second half arriving later). The two alternate trial by trial, which goes first swapping each
 * round (`--rounds`, default 15); a trial's cost is this process's CPU time (user + system: on a
 * shared machine wall time also counts the others' turns). Per round the ratio after ÷ before;
 * printed: each side's median ns per frame and the ratio's median and range over the rounds.
 *
 * Run: npx tsx bench/frame-reader.ts       (one end only: ... frame-reader.ts client|server)
 *      npx tsx bench/frame-reader.ts --before ../checkout-before [--rounds 15]
 */
import { spawnSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FrameReader } from '../src/client/frame-reader.js';
import { ClientFrameReader } from '../src/server/frame-reader.js';
import { EV, PHOENIX_TOPIC } from '../src/protocol/constants.js';
import { encodeV1, encodeV2 } from '../src/protocol/frame-encode.js';
import { StampEncoder } from '../src/protocol/stamp.js';

/** rtcap's v1 broadcast of a stamp payload of `bytes` (64: a 181-byte text). */
function broadcast(bytes: number): Buffer {
  const payload = new StampEncoder(bytes).payload(12345, 0, 1764460000123.456);
  const frame = { joinRef: null, ref: null, topic: 'realtime:bench', event: EV.broadcast };
  return Buffer.from(
    encodeV1({ ...frame, payload: { type: 'broadcast', event: 'bench', payload } }, 'server'),
  );
}
/** A client's heartbeat (v2), or the server's reply to it: what an idle connection reads. */
function heartbeat(masked: boolean): Buffer {
  const f = { joinRef: null, ref: '1042', topic: PHOENIX_TOPIC };
  return Buffer.from(
    encodeV2(
      masked
        ? { ...f, event: EV.heartbeat, payload: {} }
        : { ...f, event: EV.reply, payload: { status: 'ok', response: {} } },
    ),
  );
}

const KEY = Buffer.from([0x37, 0xfa, 0x21, 0x3d]);
/** A text frame (FIN) with a 7- or 16-bit length; masked with KEY as a client's, or not. */
function textFrame(payload: Buffer, masked: boolean): Buffer {
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

/** The two readers' classes, as a checkout's src/client and src/server frame-reader export them. */
interface Readers {
  FrameReader: new (
    s: { message: (d: Buffer) => void; ping: (d: Buffer) => void },
    max: number,
  ) => { feed(c: Buffer): Buffer | null };
  ClientFrameReader: new (
    m: (d: Buffer) => void,
    max: number,
  ) => { feed(c: Buffer): Buffer | null };
}
const AFTER: Readers = { FrameReader, ClientFrameReader };
const MAX_PAYLOAD = 100 * 1024 * 1024;

function readerPath(readers: Readers, masked: boolean): Feed {
  if (masked) {
    const reader = new readers.ClientFrameReader((data) => (sink += data.length), MAX_PAYLOAD);
    return (chunk) => void reader.feed(chunk);
  }
  const reader = new readers.FrameReader(
    { message: (data) => (sink += data.length), ping: () => {} },
    MAX_PAYLOAD,
  );
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

const ENDS: Record<string, { name: string; masked: boolean }> = {
  client: { name: 'client (server frames)', masked: false },
  server: { name: 'server (client frames, masked)', masked: true },
};

/** The table rows of one end: rtcap's reader against ws's. */
async function measure(end: string): Promise<void> {
  const { name, masked } = ENDS[end];
  const frame = textFrame(broadcast(64), masked);
  for (const per of [1, 16]) {
    const best = [Infinity, Infinity];
    for (let r = 0; r < 9; r++) {
      best[0] = Math.min(best[0], await round(wsPath(masked), frame, per));
      best[1] = Math.min(best[1], await round(readerPath(AFTER, masked), frame, per));
    }
    process.stdout.write(
      `| ${name} | ${per} | ${best[0].toFixed(0)} | ${best[1].toFixed(0)} | ${(best[1] / best[0]).toFixed(2)} |\n`,
    );
  }
}

// ---------------------------------------------------------------- before and after (--before)

/** How a trial's frames arrive: whole, many to a chunk, or each cut in two chunks. */
const CHUNKINGS = ['1 a chunk', '16 a chunk', 'cut in two'] as const;
type Chunking = (typeof CHUNKINGS)[number];

/** A trial's chunks, a few distinct copies reused (a masked one toggles as it is unmasked). */
function chunksOf(frame: Buffer, how: Chunking): Buffer[] {
  const copies = (b: Buffer) => Array.from({ length: 8 }, () => Buffer.from(b));
  if (how === '1 a chunk') return copies(frame);
  if (how === '16 a chunk') return copies(Buffer.concat(Array.from({ length: 16 }, () => frame)));
  const cut = frame.length >> 1;
  return copies(frame).flatMap((c) => [c.subarray(0, cut), c.subarray(cut)]);
}

/** ns of this process's CPU per frame for `frames` frames fed as `chunks`, round robin. */
function cpuTrial(feed: Feed, chunks: Buffer[], framesPerChunk: number, frames: number): number {
  const n = Math.round(frames / framesPerChunk);
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) feed(chunks[i % chunks.length]);
  const c = process.cpuUsage(c0);
  return ((c.user + c.system) * 1000) / frames;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** One end's rows: the readers of checkout `dir` (before) against this checkout's (after). */
async function measureBeforeAfter(end: string, dir: string, rounds: number): Promise<void> {
  const src = (p: string) => pathToFileURL(resolve(dir, p)).href;
  const before: Readers = {
    FrameReader: ((await import(src('src/client/frame-reader.ts'))) as Readers).FrameReader,
    ClientFrameReader: ((await import(src('src/server/frame-reader.ts'))) as Readers)
      .ClientFrameReader,
  };
  const { name, masked } = ENDS[end];
  const frames: [string, Buffer, number][] = [
    [
      masked ? "heartbeat (the client's)" : "heartbeat reply (the server's)",
      heartbeat(masked),
      200_000,
    ],
    ['broadcast, 64 B stamp', broadcast(64), 200_000],
    ['broadcast, 2 KB stamp', broadcast(2048), 40_000],
  ];
  for (const [what, payload, count] of frames) {
    const frame = textFrame(payload, masked);
    for (const how of CHUNKINGS) {
      const chunks = chunksOf(frame, how);
      const per = how === '16 a chunk' ? 16 : how === 'cut in two' ? 0.5 : 1;
      const trial = (readers: Readers) => cpuTrial(readerPath(readers, masked), chunks, per, count);
      trial(before); // warm-up, both
      trial(AFTER);
      const ns: [number[], number[]] = [[], []];
      for (let r = 0; r < rounds; r++) {
        const order: [Readers, number][] =
          r % 2
            ? [
                [AFTER, 1],
                [before, 0],
              ]
            : [
                [before, 0],
                [AFTER, 1],
              ];
        for (const [readers, side] of order) ns[side].push(trial(readers));
      }
      const ratios = ns[1].map((a, i) => a / ns[0][i]);
      process.stdout.write(
        `| ${name} | ${what}, ${frame.length} B | ${how} | ${median(ns[0]).toFixed(0)} | ${median(ns[1]).toFixed(0)} | ${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}) |\n`,
      );
    }
  }
}

/** `--name value` of the command line, or undefined. */
function option(args: string[], name: '--before' | '--rounds'): string | undefined {
  const i = args.indexOf(name);
  if (i >= 0 && (args[i + 1] === undefined || args[i + 1].startsWith('--')))
    throw new Error(`${name} needs a value`);
  return i >= 0 ? args[i + 1] : undefined;
}

async function main() {
  const args = process.argv.slice(2);
  const before = option(args, '--before');
  const rounds = Number(option(args, '--rounds') ?? 15);
  if (!Number.isInteger(rounds) || rounds < 2)
    throw new Error('--rounds: a whole number, 2 or more');
  const end = args[0]?.startsWith('--') ? undefined : args[0];
  if (end !== undefined) {
    if (!(end in ENDS)) throw new Error(`unknown end ${end}: client or server`);
    await (before ? measureBeforeAfter(end, before, rounds) : measure(end));
    if (sink === 0) process.stdout.write('nothing read\n');
    return;
  }
  process.stdout.write(
    before
      ? `before: ${resolve(before)}; after: this checkout; ${rounds} rounds, CPU ns per frame\n\n| reading end | frame | frames per chunk | before, ns/frame | after, ns/frame | after ÷ before: median (range) |\n|---|---|---|---|---|---|\n`
      : `| reading end | frames per socket chunk | ws Receiver + 'message' emit, ns/frame | rtcap's reader, ns/frame | rtcap ÷ ws |\n|---|---|---|---|---|\n`,
  );
  for (const e of Object.keys(ENDS)) {
    const extra = before ? ['--before', before, '--rounds', String(rounds)] : [];
    const childArgs = ['--import', 'tsx', fileURLToPath(import.meta.url), e, ...extra];
    const r = spawnSync(process.execPath, childArgs, { stdio: 'inherit', timeout: 900_000 });
    if (r.status !== 0)
      throw new Error(`bench/frame-reader.ts ${e}: exited ${r.status ?? r.signal}`);
  }
}

void main();
