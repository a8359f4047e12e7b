/**
 * The one clock every rtcap process measures with: epoch milliseconds with sub-ms precision
 * (docs/FIGURES.md "Clocks and windows": `performance.timeOrigin + performance.now()`).
 * Monotonic within a process and comparable across processes on the same host, so a receiver can
 * subtract a sender's stamp.
 */
import { performance } from 'node:perf_hooks';

const origin = performance.timeOrigin;

export function nowMs(): number {
  return origin + performance.now();
}

/** A seam for tests: anything that tells the time in epoch ms. */
export interface Clock {
  nowMs(): number;
}

export const systemClock: Clock = { nowMs };
