/**
 * The line a generator process posts once a second (generator/ipc SecondStats): that second's
 * receipts, sends, acks, joins, errors and the process's health, named by the wall-clock
 * second that just ended (and, when its tick came late, the first of the seconds it covers).
 * Lines fire just after the second ends, aligned to wall-clock seconds so every process's lines
 * line up at the coordinator.
 */
import { encodeHistogram, type Histogram } from '../measure/histogram.js';
import type { HealthSample } from '../measure/health.js';
import type { SecondStats } from './ipc.js';
import type { SecondCounters } from './step-counters.js';

/** Per-second lines fire this long after the wall-clock second ends, so it is over. */
export const SECOND_TICK_OFFSET_MS = 5;

/** Delay from `wallMs` to the next line: just after the next wall-clock second begins. */
export function nextSecondDelayMs(wallMs: number): number {
  return SECOND_TICK_OFFSET_MS + 1000 - (wallMs % 1000);
}

/** The seconds one line covers: `from` to `t`, both epoch seconds, `from` ≤ `t`. */
export interface LineSpan {
  from: number;
  t: number;
}

/**
 * Names the seconds lines cover: the one that just ended, never the same one twice, and when a
 * tick comes more than a second late, every second since the last line (figures/spread-line).
 */
export class SecondClock {
  private last = 0;

  /** The epoch seconds since the last line that ended before `wallMs` (at least one). */
  span(wallMs: number): LineSpan {
    let t = Math.floor(wallMs / 1000) - 1;
    if (t <= this.last) t = this.last + 1;
    const from = this.last === 0 ? t : this.last + 1;
    this.last = t;
    return { from, t };
  }
}

/** What one second's line is made of, each taken (and reset) by the caller. */
export interface SecondInputs {
  worker: number;
  span: LineSpan;
  open: number;
  joined: number;
  counted: SecondCounters;
  sent: number;
  acked: number;
  acksPending: number;
  receipts: { received: number; receivedByKind: number[]; bytes: number; histogram: Histogram };
  health: HealthSample;
}

export function secondLine(s: SecondInputs): SecondStats {
  return {
    type: 'second',
    worker: s.worker,
    t: s.span.t,
    ...(s.span.from < s.span.t ? { from: s.span.from } : {}),
    open: s.open,
    joined: s.joined,
    joins: s.counted.joins,
    sent: s.sent,
    acked: s.acked,
    acksPending: s.acksPending,
    received: s.receipts.received,
    receivedByKind: s.receipts.receivedByKind,
    bytes: s.receipts.bytes,
    errors: s.counted.errors,
    disconnects: s.counted.disconnects,
    histogram: encodeHistogram(s.receipts.histogram),
    health: s.health,
    errorReasons: Object.fromEntries(s.counted.errorReasons),
    errorClasses: { ...s.counted.errorClasses },
  };
}
