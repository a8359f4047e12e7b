/**
 * Counts how often this process's main thread wakes (its voluntary context switches, from
 * /proc/thread-self/status) over a while, with one kind of timer work set up and nothing else
 * running: `health` (the generator's HealthMonitor), `two-10ms` (two event-loop delay monitors at
 * 10 ms, what a generator process ran before), `server-metrics` (the built-in server's default
 * Node metrics), `prom-default` (prom-client's default metrics at its own 10 ms lag precision).
 * Prints {"wakeupsPerS": n} on stdout. Linux only. Usage: loop-wakeups.ts KIND [MS]
 */
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { HealthMonitor } from '../../src/measure/health.js';
import { defaultNodeMetrics } from '../../src/server/metrics.js';

const kind = process.argv[2];
const measureMs = Number(process.argv[3] ?? 2000);

function switches(): number {
  const status = readFileSync('/proc/thread-self/status', 'utf8');
  return Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)![1]);
}

// Kept referenced until the end (the timer below reads it): a collected monitor stops waking.
const kept: unknown[] = [];
if (kind === 'health') kept.push(new HealthMonitor());
else if (kind === 'two-10ms')
  for (let i = 0; i < 2; i++) {
    const monitor = monitorEventLoopDelay({ resolution: 10 });
    monitor.enable();
    kept.push(monitor);
  }
else if (kind === 'server-metrics') {
  const registry = new Registry();
  defaultNodeMetrics(registry);
  kept.push(registry);
} else if (kind === 'prom-default') {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  kept.push(registry);
} else throw new Error(`unknown kind ${kind}`);

// Settle first: module loading and the first timers are not what is counted.
setTimeout(() => {
  const from = switches();
  const t0 = performance.now();
  setTimeout(() => {
    const seconds = (performance.now() - t0) / 1000;
    const wakeupsPerS = (switches() - from) / seconds;
    process.stdout.write(JSON.stringify({ wakeupsPerS, monitors: kept.length }) + '\n');
    process.exit(0);
  }, measureMs);
}, 300);
