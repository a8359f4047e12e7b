/**
 * Micro-benchmarks of the generator's per-delivery work (STYLE.md "Benchmark the
 * benchmarker"): scanning the stamp from raw bytes vs JSON.parse, the ledger record, the
 * histogram record. Figures are ns per operation on this machine, best of 5 rounds; compare
 * the ratios within one run, not absolute numbers across runs (shared, noisy machines).
 * Run: npx tsx bench/hotpath.ts
 */
import { scanStamp, StampEncoder, type Stamp } from '../src/protocol/stamp.js';
import { encodeUserBroadcast, encodeV1, encodeV2 } from '../src/protocol/frame.js';
import { ReceiveLedger, newMemberState } from '../src/measure/ledger.js';
import { createHistogram, recordMs } from '../src/measure/histogram.js';

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
const v1 = Buffer.from(encodeV1({ joinRef: null, ref: null, topic: 'realtime:bench', event: 'broadcast', payload: env }, 'server'));
const v2 = Buffer.from(encodeV2({ joinRef: null, ref: null, topic: 'realtime:bench', event: 'broadcast', payload: env }));
const k4 = Buffer.from(encodeUserBroadcast({ topic: 'realtime:bench', userEvent: 'bench', payload }));
const big = Buffer.from(encodeV1({ joinRef: null, ref: null, topic: 'realtime:bench', event: 'broadcast', payload: { type: 'broadcast', event: 'bench', payload: new StampEncoder(10_240).payload(1, 0, 1764460000123.456) } }, 'server'));
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
const parse = bench('JSON.parse(buffer.toString()) of the v1 frame (the naive way)', 1_000_000, () => {
  const f = JSON.parse(v1.toString()) as { payload: { payload: { t: number } } };
  sink += f.payload.payload.t;
});
const ledger = new ReceiveLedger();
ledger.beginStep(0);
const members = Array.from({ length: 1000 }, () => {
  const m = newMemberState();
  m.joinedAtMs = 1;
  return m;
});
const base = 1764460000000;
bench('ReceiveLedger.record (1,000 members, in-order seqs)', 2_000_000, (i) => {
  const seq = Math.floor(i / 1000);
  ledger.record(members[i % 1000], 0, seq + 10_000 * 0, base + seq, base + seq + 1.5, 150);
});
const h = createHistogram();
bench('HDR recordMs', 5_000_000, (i) => recordMs(h, (i % 5000) / 10));
process.stdout.write(`\nstamp scan is ${(parse / scan).toFixed(1)}× cheaper than a JSON.parse of the frame (${sink > 0 ? 'ok' : ''})\n`);
