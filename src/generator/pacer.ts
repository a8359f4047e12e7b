/**
 * The clock and timer a driver runs on: the real ones in a generator process, fakes in unit
 * tests (docs/ARCHITECTURE.md "Code rules": "Seams as small interfaces").
 */
import { nowMs } from '../measure/clock.js';

export interface Pacer {
  now(): number;
  /** Runs `fn` after `ms` milliseconds (at once when ms <= 0, on a later turn of the loop). */
  after(ms: number, fn: () => void): void;
}

export const realPacer: Pacer = {
  now: nowMs,
  after: (ms, fn) => {
    setTimeout(fn, Math.max(0, ms));
  },
};

export interface OpenLoop {
  /** How many events the loop has. */
  total: number;
  /** When event k is due (epoch ms); non-decreasing in k. */
  dueOf(k: number): number;
  /** Fires event k; `nowMs` is when the loop got to it (>= dueMs). */
  fire(k: number, dueMs: number, nowMs: number): void;
  /** True when the loop must stop without ending (process stopping, step over). */
  cancelled(): boolean;
  /** Past this time no more events are fired: a generator this far behind gives up. */
  giveUpAtMs?: number;
  /** Called once when every event fired or the loop gave up; `fired` events were fired. */
  end(fired: number): void;
}

/**
 * Runs an open-model loop (wrk2's lesson, OpenSchedule): every event fires at its due time or,
 * when the process is behind, as soon as it can, late but never skipped; only past giveUpAtMs
 * does the loop stop and leave the rest to its caller to count.
 */
export function runOpenLoop(pacer: Pacer, loop: OpenLoop): void {
  const giveUpAtMs = loop.giveUpAtMs ?? Infinity;
  let k = 0;
  const tick = () => {
    if (loop.cancelled()) return;
    const now = pacer.now();
    while (k < loop.total) {
      const due = loop.dueOf(k);
      if (due > now) break;
      loop.fire(k, due, now);
      k++;
      // The clock, not the tick's start: a catch-up that runs past the give-up time stops there.
      if (pacer.now() > giveUpAtMs) break;
    }
    if (k < loop.total && pacer.now() <= giveUpAtMs) {
      pacer.after(loop.dueOf(k) - pacer.now(), tick);
      return;
    }
    loop.end(k);
  };
  pacer.after(loop.total > 0 ? loop.dueOf(0) - pacer.now() : 0, tick);
}
