/**
 * The send side of the delivery ledger: what one generator process sent in a step, the scheduled
 * and actual send time of each message, per local stream; sends that could not be made, and those
 * later than the late threshold.
 */
import { Grow } from './grow.js';

/** What one process sent in a step, per local stream: scheduled and actual times by seq. */
export class SendLedger {
  private streams = new Map<
    number,
    { sched: Float64Array<ArrayBuffer>; actual: Float64Array<ArrayBuffer>; size: number }
  >();
  sent = 0;
  failed = 0;
  late = 0;
  sentThisSecond = 0;

  constructor(private lateThresholdMs: number) {}

  beginStep(lateThresholdMs: number): void {
    this.lateThresholdMs = lateThresholdMs;
    this.streams.clear();
    this.sent = this.failed = this.late = 0;
  }

  /** `actualMs` NaN when the send could not be made (closed socket, send error). */
  record(localStream: number, seq: number, schedMs: number, actualMs: number): void {
    let s = this.streams.get(localStream);
    if (!s) {
      s = { sched: new Float64Array(64), actual: new Float64Array(64).fill(NaN), size: 0 };
      this.streams.set(localStream, s);
    }
    if (seq >= s.sched.length) {
      s.sched = Grow.f64(s.sched, seq + 1);
      s.actual = Grow.f64(s.actual, seq + 1, NaN);
    }
    s.sched[seq] = schedMs;
    s.actual[seq] = actualMs;
    if (seq >= s.size) s.size = seq + 1;
    if (Number.isNaN(actualMs)) {
      this.failed++;
    } else {
      this.sent++;
      this.sentThisSecond++;
      if (actualMs - schedMs > this.lateThresholdMs) this.late++;
    }
  }

  snapshot(): Array<{ stream: number; sched: Float64Array; actual: Float64Array }> {
    return [...this.streams.entries()].map(([stream, s]) => ({
      stream,
      sched: s.sched.slice(0, s.size),
      actual: s.actual.slice(0, s.size),
    }));
  }
}
