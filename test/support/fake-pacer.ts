/** A virtual clock and timer queue for drivers' unit tests: time moves only when run. */
import type { Pacer } from '../../src/generator/pacer.js';

export class FakePacer implements Pacer {
  private timers: Array<{ at: number; seq: number; fn: () => void }> = [];
  private seq = 0;
  constructor(public t = 0) {}

  now(): number {
    return this.t;
  }

  after(ms: number, fn: () => void): void {
    this.timers.push({ at: this.t + Math.max(0, ms), seq: this.seq++, fn });
  }

  /**
   * Runs timers in time order until none is due by `untilMs` (bounded, so a runaway loop fails the
   * test).
   */
  run(untilMs = Infinity, maxTimers = 100_000): void {
    for (let n = 0; n < maxTimers; n++) {
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.timers[0];
      if (!next || next.at > untilMs) break;
      this.timers.shift();
      if (next.at > this.t) this.t = next.at;
      next.fn();
    }
    if (untilMs !== Infinity && untilMs > this.t) this.t = untilMs;
  }

  get pending(): number {
    return this.timers.length;
  }
}
