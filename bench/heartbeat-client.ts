/**
 * The JavaScript a generator connection spends on one heartbeat, before and after the
 * pre-framed heartbeat (src/protocol/heartbeat.ts), without the sockets: building the frame
 * and reading the reply.
 *
 * - before: the frame's text by `encodeFrame` (JSON.stringify), framed by ws's own
 *   `Sender.frame` as ws's `send` does (a fresh mask key from its pool, the text copied to a
 *   Buffer and masked: two buffers, header and payload); the reply read as `onMessage` did:
 *   `scanStamp` (not a stamp), then `decodeFrame` (UTF-8 decode and JSON.parse) and the ref
 *   compared.
 * - after: `heartbeatFrame` (one masked buffer from a fixed head and tail and the ref, a mask key
 *   from a random pool) and `isHeartbeatOk` on the reply's bytes.
 *
 * The write itself (ws: header and payload corked into one `writev`; after: one `write`) is
 * not here: bench/server-heartbeat.ts --compare-client measures whole heartbeats over real
 * sockets. Figures are ns of this process's CPU (process.cpuUsage, user + system: on a shared
 * machine wall time also counts the others' turns) per heartbeat, best of 9 rounds, the two
 * sides alternating round by round; compare them within one run (shared, noisy machines).
 * Run: npx tsx bench/heartbeat-client.ts
 */
import { randomFillSync } from 'node:crypto';
import { createRequire } from 'node:module';
import { EV, VSN_1, VSN_2, type Vsn } from '../src/protocol/constants.js';
import { decodeFrame, encodeFrame } from '../src/protocol/frame.js';
import { heartbeatFrame, isHeartbeatOk } from '../src/protocol/heartbeat.js';
import { scanStamp, type Stamp } from '../src/protocol/stamp.js';

// ws's Sender, whose static `frame` its WebSocket's send uses (not in @types/ws).
const Sender = (createRequire(import.meta.url)('ws') as { Sender: unknown }).Sender as {
  frame(data: Buffer | string, options: Record<string, unknown>): Buffer[];
};

const N = 100_000;
const ROUNDS = 9;
/** Refs as a generator numbers them: a connection's counter, here in its thousands. */
const refOf = (i: number) => String(1000 + (i % 100_000));
const replyOf = (ref: string, vsn: Vsn) =>
  Buffer.from(
    encodeFrame(
      {
        joinRef: null,
        ref,
        topic: 'phoenix',
        event: EV.reply,
        payload: { status: 'ok', response: {} },
      },
      vsn,
      'server',
    ),
  );
const stamp: Stamp = { id: 0, stream: 0, sentAtMs: 0 };
let sink = 0;

function before(vsn: Vsn, replies: Buffer[]): (i: number) => void {
  const maskBuffer = Buffer.alloc(4);
  return (i) => {
    const ref = refOf(i);
    const text = encodeFrame(
      { joinRef: null, ref, topic: 'phoenix', event: EV.heartbeat, payload: {} },
      vsn,
      'client',
    );
    const list = Sender.frame(text, {
      fin: true,
      mask: true,
      maskBuffer,
      opcode: 1,
      readOnly: false,
      rsv1: false,
    });
    sink += list.length;
    const reply = replies[i % replies.length];
    if (scanStamp(reply, stamp)) sink++;
    const f = decodeFrame(reply, false, vsn, 'server');
    if (f.event === EV.reply && f.ref === ref) sink++;
  };
}

function after(vsn: Vsn, replies: Buffer[]): (i: number) => void {
  const pool = Buffer.alloc(8192);
  let at = pool.length;
  return (i) => {
    const ref = refOf(i);
    if (at + 4 > pool.length) {
      randomFillSync(pool);
      at = 0;
    }
    sink += heartbeatFrame(ref, vsn, pool, at)!.length;
    at += 4;
    if (isHeartbeatOk(replies[i % replies.length], ref, vsn)) sink++;
  };
}

function pair(vsn: Vsn): [number, number] {
  const replies = Array.from({ length: 100_000 }, (_, i) => replyOf(refOf(i), vsn));
  const sides = [before(vsn, replies), after(vsn, replies)];
  const best = [Infinity, Infinity];
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    for (const k of order) {
      const t0 = process.cpuUsage();
      for (let i = 0; i < N; i++) sides[k](i);
      const { user, system } = process.cpuUsage(t0);
      best[k] = Math.min(best[k], ((user + system) * 1000) / N);
    }
  }
  return [best[0], best[1]];
}

process.stdout.write(
  '| vsn | before: encodeFrame + ws Sender.frame, decodeFrame (ns) | after: heartbeatFrame, isHeartbeatOk (ns) | after ÷ before |\n|---|---|---|---|\n',
);
for (const vsn of [VSN_1, VSN_2] as Vsn[]) {
  const [b, a] = pair(vsn);
  process.stdout.write(`| ${vsn} | ${b.toFixed(0)} | ${a.toFixed(0)} | ${(a / b).toFixed(2)} |\n`);
}
if (sink === 0) process.stdout.write('(nothing counted)\n');
