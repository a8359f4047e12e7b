/**
 * What the step's members still receive between steps: messages of an earlier step still
 * arriving mean the server has not worked off its backlog, whatever a probe's own round trips
 * say (a server that queues per member delivers a fresh connection's messages at once). Fed
 * with the generator processes' per-second lines (generator/second-report), which keep coming
 * between steps; a receipt is a stamped delivery the ledger counted, or its bytes.
 */

/** The part of a generator's per-second line this reads. */
export interface ArrivalLine {
  /** Epoch second the line covers. */
  t: number;
  received: number;
  bytes: number;
}

/** How long before a probe's end a second must have ended for its line to be read. */
export const QUIET_WINDOW_MS = 1_000;

export class ArrivalWatch {
  /** Receipts per epoch second, summed over the processes; only the last few seconds are kept. */
  private readonly bySecond = new Map<number, number>();

  add(line: ArrivalLine): void {
    const n = line.received + (line.bytes > 0 && line.received === 0 ? 1 : 0);
    this.bySecond.set(line.t, (this.bySecond.get(line.t) ?? 0) + n);
    for (const t of this.bySecond.keys()) if (t < line.t - 30) this.bySecond.delete(t);
  }

  /**
   * Receipts the members reported in the seconds that ended within QUIET_WINDOW_MS before
   * `atMs` (epoch ms): 0 when nothing of an earlier step still arrives.
   */
  stillArriving(atMs: number): number {
    let n = 0;
    for (const [t, count] of this.bySecond) if ((t + 1) * 1000 > atMs - QUIET_WINDOW_MS) n += count;
    return n;
  }
}
