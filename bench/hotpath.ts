/**
 * Micro-benchmarks of the generator's per-delivery work (docs/ARCHITECTURE.md "Code rules":
 * "Benchmark the benchmarker"): scanning the stamp from raw bytes vs JSON.parse, the ledger record
 * (today's, with exact duplicate/reorder classification, beside the one before it), the histogram
 * record. Figures are ns per operation on this machine, best of 5 rounds; compare the ratios
 * within one run, not absolute numbers across runs (shared, noisy machines).
 * Run: npx tsx bench/hotpath.ts
 */
import { scanStamp, StampEncoder, type Stamp } from '../src/protocol/stamp.js';
import { encodeUserBroadcast, encodeV1, encodeV2 } from '../src/protocol/frame-encode.js';
import { ReceiveLedger } from '../src/measure/ledger.js';
import { newMemberState } from '../src/measure/member-state.js';
import { OldReceiveLedger, oldMemberState } from './support/ledger-before-reorder.js';
import { SeqWindows } from '../src/measure/seq-window.js';

function bench(name: string, n: number, fn: (i: number) => void): number {
  let best = Infinity;
  for (let round = 0; round < 5; round++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn(i);
    const ns = Number(process.hrtime.bigint() - t0) / n;
    best = Math.min(best, ns);
  }
  process.stdout.write(`| ${name} | ${best.toFixed(0)} |\n`);
  return best;
}

const enc = new StampEncoder(64);
const payload = enc.payload(12345, 0, 1764460000123.456);
const env = { type: 'broadcast', event: 'bench', payload };
const v1 = Buffer.from(
  encodeV1(
    { joinRef: null, ref: null, topic: 'realtime:bench', event: 'broadcast', payload: env },
    'server',
  ),
);
const v2 = Buffer.from(
  encodeV2({ joinRef: null, ref: null, topic: 'realtime:bench', event: 'broadcast', payload: env }),
);
const k4 = Buffer.from(
  encodeUserBroadcast({ topic: 'realtime:bench', userEvent: 'bench', payload }),
);
const big = Buffer.from(
  encodeV1(
    {
      joinRef: null,
      ref: null,
      topic: 'realtime:bench',
      event: 'broadcast',
      payload: {
        type: 'broadcast',
        event: 'bench',
        payload: new StampEncoder(10_240).payload(1, 0, 1764460000123.456),
      },
    },
    'server',
  ),
);
const out: Stamp = { id: 0, stream: 0, sentAtMs: 0 };
let sink = 0;

process.stdout.write('| operation | ns/op |\n|---|---|\n');
const scan = bench('scanStamp, v1 frame 64 B payload', 2_000_000, () => {
  scanStamp(v1, out);
  sink += out.id;
});
bench('scanStamp, v2 array frame', 2_000_000, () => {
  scanStamp(v2, out);
  sink += out.id;
});
bench('scanStamp, v2 binary kind 4', 2_000_000, () => {
  scanStamp(k4, out);
  sink += out.id;
});
bench('scanStamp, v1 frame 10 KB payload', 200_000, () => {
  scanStamp(big, out);
  sink += out.id;
});
const parse = bench(
  'JSON.parse(buffer.toString()) of the v1 frame (the naive way)',
  1_000_000,
  () => {
    const f = JSON.parse(v1.toString()) as { payload: { payload: { t: number } } };
    sink += f.payload.payload.t;
  },
);

// The receive ledger, today's (exact duplicate/reorder classification, measure/seq-window)
// beside the one before it (last seq per stream only: bench/support/ledger-before-reorder.ts).
// Each round starts a fresh ledger and fresh members, so every round measures first receipts
// (a repeated round would measure the duplicate path). Seqs are sent in order by one sender
// (seq = i ÷ members), except where a case says otherwise.
const base = 1764460000000;
const MEMBERS = 1000;

/**
 * Best of 9 fresh rounds each of `n` receipts, the two sides alternating round by round so
 * that a busy machine slows both alike; setup (new ledger, members) is outside the timing.
 */
function benchPair(
  name: string,
  n: number,
  before: () => (i: number) => void,
  after: () => (i: number) => void,
): [number, number] {
  const best = [Infinity, Infinity];
  for (let round = 0; round < 9; round++) {
    for (const [k, setup] of [before, after].entries()) {
      const fn = setup();
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < n; i++) fn(i);
      best[k] = Math.min(best[k], Number(process.hrtime.bigint() - t0) / n);
    }
  }
  process.stdout.write(`| ${name}: before (last seq only) | ${best[0].toFixed(0)} |\n`);
  process.stdout.write(
    `| ${name}: today (exact duplicates and reorders) | ${best[1].toFixed(0)} |\n`,
  );
  return [best[0], best[1]];
}

/** Seq of receipt i when every 50th message arrives after its successor (swapped pairs). */
const reorderedSeq = (seq: number) => (seq % 50 === 48 ? seq + 1 : seq % 50 === 49 ? seq - 1 : seq);

type Case = { name: string; streams: number; seqOf: (seq: number) => number };
const cases: Case[] = [
  { name: '1,000 members, one stream, in order', streams: 1, seqOf: (q) => q },
  {
    name: '1,000 members, one stream, every 50th message after its successor',
    streams: 1,
    seqOf: reorderedSeq,
  },
  { name: '1,000 members, 8 streams each (presence-like), in order', streams: 8, seqOf: (q) => q },
];
const N = 1_000_000;
const ratios: string[] = [];
for (const c of cases) {
  // Receipt i: member i % MEMBERS, stream (i ÷ MEMBERS) % streams, seq i ÷ (MEMBERS × streams).
  const perSeq = MEMBERS * c.streams;
  let old: OldReceiveLedger | null = null;
  let now: ReceiveLedger | null = null;
  const [before, after] = benchPair(
    `record, ${c.name}`,
    N,
    () => {
      const l = (old = new OldReceiveLedger());
      const members = Array.from({ length: MEMBERS }, () => oldMemberState(1));
      return (i) => {
        const seq = c.seqOf(Math.floor(i / perSeq));
        l.record(
          members[i % MEMBERS],
          Math.floor(i / MEMBERS) % c.streams,
          seq,
          base + seq,
          base + seq + 1.5,
          150,
        );
      };
    },
    () => {
      const l = (now = new ReceiveLedger());
      l.beginStep(0);
      const members = Array.from({ length: MEMBERS }, () => {
        const m = newMemberState();
        m.joinedAtMs = 1;
        return m;
      });
      return (i) => {
        const seq = c.seqOf(Math.floor(i / perSeq));
        l.record(
          members[i % MEMBERS],
          Math.floor(i / MEMBERS) % c.streams,
          seq,
          base + seq,
          base + seq + 1.5,
          150,
        );
      };
    },
  );
  const o = old as OldReceiveLedger | null;
  const t = now as ReceiveLedger | null;
  ratios.push(
    `record, ${c.name}: ${(after - before).toFixed(0)} ns more per receipt (${(after / before).toFixed(2)}×); ` +
      `last round before: received ${o?.received}, duplicates ${o?.duplicates}; today: received ${t?.received}, reordered ${t?.reordered}, duplicates ${t?.duplicates}`,
  );
}
// The classification alone, without the receipt counts and histograms both paths share: the
// old compare-and-store of the last seq vs a SeqWindows.classify, one stream per member.
{
  const [before, after] = benchPair(
    'duplicate check alone, 1,000 members, in order',
    N,
    () => {
      const last = new Float64Array(MEMBERS).fill(-1);
      return (i) => {
        const m = i % MEMBERS;
        const seq = Math.floor(i / MEMBERS);
        if (seq <= last[m]) sink++;
        else last[m] = seq;
      };
    },
    () => {
      const windows = new SeqWindows();
      const w = Array.from({ length: MEMBERS }, () => windows.open(0));
      return (i) => {
        sink += windows.classify(w[i % MEMBERS], Math.floor(i / MEMBERS) + 1);
      };
    },
  );
  ratios.push(`duplicate check alone: ${(after - before).toFixed(1)} ns more per receipt`);
}
process.stdout.write(`\n${ratios.join('\n')}\n`);
process.stdout.write(
  `\nstamp scan is ${(parse / scan).toFixed(1)}× cheaper than a JSON.parse of the frame (${sink > 0 ? 'ok' : ''})\n`,
);
