/**
 * The generator's own health (docs/VERDICTS.md: a step is generator-bound when the
 * generator fell behind). Each generator process samples its CPU and event-loop lag once a second.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { rssMb } from './process-rss.js';

export interface HealthSample {
  /** CPU of this process over the interval, % of one core. */
  cpuPct: number;
  /** Event-loop delay p99 over the interval, ms. */
  lagP99Ms: number;
  lagMaxMs: number;
  rssMb: number;
}

/**
 * The delay monitors' sampling period, ms. Each monitor is a timer that wakes the event loop once
 * a period; 20 ms instead of 10 halves the wakeups of an idle process (98 to 50 a second for the
 * two monitors), which a 500,000-connection run pays in each of its 34 generator processes. A
 * stall shows the same at either period: the timer due during it fires that much late.
 */
export const LAG_RESOLUTION_MS = 20;

/**
 * The event-loop delay of an interval in which the delay monitor never fired: its timer is due
 * every LAG_RESOLUTION_MS, so none firing in `elapsedMs` means the loop was held for (at least) all
 * of it, and the delay it will record once it fires lands in a later interval. An empty histogram
 * reads 0; without this a process held for seconds at a time (a late tick's line covering them)
 * read no lag at all. 0 when the monitor fired or the interval is too short to tell.
 */
export function heldThroughoutMs(delaySamples: number, elapsedMs: number): number {
  if (delaySamples > 0 || elapsedMs <= 2 * LAG_RESOLUTION_MS) return 0;
  return elapsedMs - LAG_RESOLUTION_MS;
}

export class HealthMonitor {
  private readonly loop: IntervalHistogram;
  /** The same delay over a measurement window (a step's steady state), for its p99. */
  private readonly window: IntervalHistogram;
  private lastCpu = process.cpuUsage();
  private lastWallMs = performance.now();

  constructor() {
    this.loop = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
    this.loop.enable();
    this.window = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
    this.window.enable();
  }

  resetWindow(): void {
    this.window.reset();
  }

  /** Event-loop delay p99 since resetWindow(), ms (timer resolution subtracted). */
  windowLagP99Ms(): number | null {
    if (this.window.count === 0) return null;
    return Math.max(0, this.window.percentile(99) / 1e6 - LAG_RESOLUTION_MS);
  }

  /**
   * The interval's CPU, lag and RSS. `tickLateMs`: how late the timer that asks came, itself a
   * delay of this interval's loop. The delay monitor records a stall only when its own timer
   * next fires, which can be after this sample (the timer that asks ran first in that loop
   * turn), so a line whose tick a stall made late read the stall in its next line, or not at all.
   */
  sample(tickLateMs = 0): HealthSample {
    const cpu = process.cpuUsage();
    const wallMs = performance.now();
    const usedUs = cpu.user - this.lastCpu.user + (cpu.system - this.lastCpu.system);
    const elapsedMs = Math.max(1, wallMs - this.lastWallMs);
    this.lastCpu = cpu;
    this.lastWallMs = wallMs;
    const atLeast = Math.max(tickLateMs, heldThroughoutMs(this.loop.count, elapsedMs));
    // The delay histogram counts the timer resolution itself; subtract it so idle reads ~0.
    const lagP99Ms = Math.max(atLeast, this.loop.percentile(99) / 1e6 - LAG_RESOLUTION_MS);
    const lagMaxMs = Math.max(atLeast, this.loop.max / 1e6 - LAG_RESOLUTION_MS);
    this.loop.reset();
    return {
      cpuPct: (usedUs / 1000 / elapsedMs) * 100,
      lagP99Ms: Number.isFinite(lagP99Ms) ? lagP99Ms : 0,
      lagMaxMs: Number.isFinite(lagMaxMs) ? lagMaxMs : 0,
      rssMb: rssMb(),
    };
  }

  stop(): void {
    this.loop.disable();
    this.window.disable();
  }
}
