/**
 * A tap for the latency-overhead bench, loaded into rtcap's generator process with
 * RTCAP_WORKER_EXEC_ARGV="--import <this file>" and RTCAP_RECEIPT_TAP=<output file>: it wraps
 * the receive ledger's record() (dist/measure/ledger.js, the same module instance the worker
 * uses) to keep the first receive time of every sequence number, and writes them as JSON
 * ({ originMs, nice, cpuMs, first: { "seq": recvMs, ... } }) when the process exits: originMs
 * as bench/support/monotonic-origin.ts computes it, nice the process's niceness then, cpuMs its
 * user + system CPU from the first receipt to the exit, timeOriginMs its performance.timeOrigin
 * (to place --trace-gc's times), and with RTCAP_TAP_SECONDS=1 `seconds`: when each per-second
 * report began (epoch ms) and how long it took (ms). It adds a Map lookup per receipt, so it
 * can only make rtcap look slower, never faster.
 */
import { writeFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { performance } from 'node:perf_hooks';

const out = process.env.RTCAP_RECEIPT_TAP;
if (out) {
  const { ReceiveLedger } = await import(new URL('../../dist/measure/ledger.js', import.meta.url));
  const record = ReceiveLedger.prototype.record;
  const first = new Map();
  let cpuStart = null;
  ReceiveLedger.prototype.record = function (m, stream, seq, sentAtMs, recvMs, ...rest) {
    cpuStart ??= process.cpuUsage();
    const had = first.get(seq);
    if (had === undefined || recvMs < had) first.set(seq, recvMs);
    return record.call(this, m, stream, seq, sentAtMs, recvMs, ...rest);
  };
  // Diagnostic: when each per-second report ran and how long it took (epoch ms, ms).
  const seconds = [];
  if (process.env.RTCAP_TAP_SECONDS) {
    const { GeneratorWorker } = await import(new URL('../../dist/load/worker.js', import.meta.url));
    const report = GeneratorWorker.prototype.reportSecond;
    GeneratorWorker.prototype.reportSecond = function (...args) {
      const t0 = performance.timeOrigin + performance.now();
      const out = report.apply(this, args);
      seconds.push([t0, performance.timeOrigin + performance.now() - t0]);
      return out;
    };
  }
  process.on('exit', () => {
    // This process's epoch ms at CLOCK_MONOTONIC zero (see monotonic-origin.ts).
    const originMs =
      performance.timeOrigin + performance.now() - Number(process.hrtime.bigint()) / 1e6;
    const cpu = cpuStart ? process.cpuUsage(cpuStart) : { user: 0, system: 0 };
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const taken = {
      originMs,
      timeOriginMs: performance.timeOrigin,
      nice: getPriority(),
      cpuMs,
      first: Object.fromEntries(first),
      seconds,
    };
    writeFileSync(out, JSON.stringify(taken));
  });
}
