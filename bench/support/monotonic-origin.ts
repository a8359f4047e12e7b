/**
 * The epoch time (ms) this process's clock.nowMs gives to CLOCK_MONOTONIC's zero: nowMs() −
 * process.hrtime. CLOCK_MONOTONIC is one clock for every process on a machine, while each
 * process fixes its own nowMs origin when it starts, so two processes' nowMs can differ by this
 * constant's difference; subtracting each process's own makes their times comparable.
 */
import { nowMs } from '../../src/measure/clock.js';

export function monotonicOriginMs(): number {
  return nowMs() - Number(process.hrtime.bigint()) / 1e6;
}
