/**
 * The one clock every rtcap process measures with: epoch milliseconds with sub-ms precision
 * (docs/FIGURES.md "Clocks and windows": `performance.timeOrigin + performance.now()`).
 * Monotonic within a process and comparable across processes on the same host, so a receiver can
 * subtract a sender's stamp.
 */
import { performance } from 'node:perf_hooks';

/**
 * RTCAP_CLOCK_OFFSET_MS shifts this process's clock (and its generator processes', which
 * inherit the environment) by a fixed amount: a rehearsal of a run split over machines whose
 * clocks differ by a known offset (docs/DISTRIBUTED.md, "Clocks"). Unset: the system clock.
 */
export function clockOffsetFromEnv(value: string | undefined): number {
  if (value === undefined || value === '') return 0;
  const ms = Number(value);
  if (!Number.isFinite(ms) || Math.abs(ms) > 86_400_000)
    throw new Error(`RTCAP_CLOCK_OFFSET_MS: "${value}" is not a number of ms within ±1 day`);
  return ms;
}

const origin = performance.timeOrigin + clockOffsetFromEnv(process.env.RTCAP_CLOCK_OFFSET_MS);

export function nowMs(): number {
  return origin + performance.now();
}

/** A seam for tests: anything that tells the time in epoch ms. */
export interface Clock {
  nowMs(): number;
}

export const systemClock: Clock = { nowMs };
