/**
 * A tap for the latency-overhead bench, loaded into rtcap's generator process with
 * RTCAP_WORKER_EXEC_ARGV="--import <this file>" and RTCAP_RECEIPT_TAP=<output file>: it wraps
 * the receive ledger's record() (dist/measure/ledger.js, the same module instance the worker
 * uses) to keep the first receive time of every sequence number, and writes them as JSON
 * ({ "seq": recvMs, ... }) when the process exits. It adds a Map lookup per receipt, so it
 * can only make rtcap look slower, never faster.
 */
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const out = process.env.RTCAP_RECEIPT_TAP;
if (out) {
  const { ReceiveLedger } = await import(new URL('../../dist/measure/ledger.js', import.meta.url));
  const record = ReceiveLedger.prototype.record;
  const first = new Map();
  ReceiveLedger.prototype.record = function (m, stream, seq, sentAtMs, recvMs, ...rest) {
    const had = first.get(seq);
    if (had === undefined || recvMs < had) first.set(seq, recvMs);
    return record.call(this, m, stream, seq, sentAtMs, recvMs, ...rest);
  };
  process.on('exit', () => {
    // This process's epoch ms at CLOCK_MONOTONIC zero (see monotonic-origin.ts).
    const originMs =
      performance.timeOrigin + performance.now() - Number(process.hrtime.bigint()) / 1e6;
    writeFileSync(out, JSON.stringify({ originMs, first: Object.fromEntries(first) }));
  });
}
