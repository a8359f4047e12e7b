/**
 * Micro-benchmark of the acked-send path's bookkeeping (generator/ack-tracker): one pending ack
 * opened, bound to its push ref and settled by the reply, with `inFlight` acks pending
 * (rate × ack latency), and the timeout sweep over acks that never come back. ns per acked
 * send on this machine, best of 5 rounds; compare within one run (shared, noisy machines).
 * Run: npx tsx bench/ack-tracker.ts
 */
import { AckTracker, newAckCounts } from '../src/generator/ack-tracker.js';

function bench(name: string, n: number, setup: () => (i: number) => void): number {
  let best = Infinity;
  for (let round = 0; round < 5; round++) {
    const fn = setup();
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn(i);
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / n);
  }
  process.stdout.write(`| ${name} | ${best.toFixed(0)} |\n`);
  return best;
}

const conn = {};
const N = 1_000_000;
process.stdout.write('| acked send bookkeeping | ns/send |\n|---|---|\n');
for (const inFlight of [1, 10_000, 100_000]) {
  bench(`open + bind + settle ok, ${inFlight.toLocaleString('en-US')} in flight`, N, () => {
    const t = new AckTracker<object>(10_000, () => undefined);
    t.countInto(newAckCounts());
    // The ids in flight, a ring: the oldest is answered as each new one opens.
    const ring = new Float64Array(inFlight);
    for (let k = 0; k < inFlight; k++) ring[k] = t.open(conn, k, k);
    return (i) => {
      const slot = i % inFlight;
      t.settle(ring[slot], true, i);
      const id = t.open(conn, i, i);
      t.bind(id, '7');
      ring[slot] = id;
    };
  });
}
// Every 10th ack never answered: swept by expire() (called every 250 ms in a worker; here every
// 1,000 sends).
bench('open + bind, 90 % settled, 10 % timed out by the sweep', N, () => {
  const t = new AckTracker<object>(100, () => undefined);
  t.countInto(newAckCounts());
  return (i) => {
    const id = t.open(conn, i, i);
    t.bind(id, '7');
    if (i % 10 !== 0) t.settle(id, true, i);
    if (i % 1000 === 0) t.expire(i);
  };
});
