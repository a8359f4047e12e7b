import { describe, expect, it } from 'vitest';
import { createHistogram, decodeHistogram, recordMs } from '../../src/measure/histogram.js';
import {
  nextSecondDelayMs,
  SECOND_TICK_OFFSET_MS,
  SecondClock,
  secondLine,
} from '../../src/generator/second-report.js';

describe('the per-second line', () => {
  it('fires just after the next wall-clock second begins', () => {
    expect(nextSecondDelayMs(10_000)).toBe(1000 + SECOND_TICK_OFFSET_MS);
    expect(nextSecondDelayMs(10_995)).toBe(5 + SECOND_TICK_OFFSET_MS);
  });

  it('names the second that just ended, never the same one twice', () => {
    const clock = new SecondClock();
    expect(clock.span(10_005)).toEqual({ from: 9, t: 9 });
    // A timer that fired early (still in second 10) names the next second, not 9 again.
    expect(clock.span(10_990)).toEqual({ from: 10, t: 10 });
    expect(clock.span(12_004)).toEqual({ from: 11, t: 11 });
  });

  it('a tick more than a second late covers every second since the last line', () => {
    const clock = new SecondClock();
    clock.span(10_005);
    // Seconds 10, 11 and 12 ended before this tick; the line holds all three.
    expect(clock.span(13_004)).toEqual({ from: 10, t: 12 });
    expect(clock.span(14_005)).toEqual({ from: 13, t: 13 });
  });

  it('carries what the second counted and its latency histogram', () => {
    const histogram = createHistogram();
    recordMs(histogram, 12);
    recordMs(histogram, 40);
    const line = secondLine({
      worker: 2,
      span: { from: 99, t: 99 },
      open: 10,
      joined: 9,
      counted: {
        joins: 3,
        errors: 1,
        disconnects: 1,
        errorReasons: new Map([['boom', 1]]),
        errorClasses: { server: 1 },
      },
      sent: 50,
      acked: 48,
      acksPending: 2,
      receipts: { received: 400, receivedByKind: [400, 0, 0], bytes: 25_600, histogram },
      health: { cpuPct: 12, lagP99Ms: 3, lagMaxMs: 4, rssMb: 80 },
    });
    expect(line).toMatchObject({
      type: 'second',
      worker: 2,
      t: 99,
      open: 10,
      joined: 9,
      joins: 3,
      sent: 50,
      acked: 48,
      acksPending: 2,
      received: 400,
      receivedByKind: [400, 0, 0],
      bytes: 25_600,
      errors: 1,
      disconnects: 1,
      errorReasons: { boom: 1 },
      errorClasses: { server: 1 },
      health: { cpuPct: 12, lagP99Ms: 3, lagMaxMs: 4, rssMb: 80 },
    });
    expect(decodeHistogram(line.histogram).totalCount).toBe(2);
    expect(line.from).toBeUndefined();
  });

  it('a line of more than one second says the first it covers', () => {
    const line = secondLine({
      worker: 0,
      span: { from: 97, t: 99 },
      open: 1,
      joined: 1,
      counted: { joins: 0, errors: 0, disconnects: 0, errorReasons: new Map(), errorClasses: {} },
      sent: 0,
      acked: 0,
      acksPending: 0,
      receipts: { received: 0, receivedByKind: [0, 0, 0], bytes: 0, histogram: createHistogram() },
      health: { cpuPct: 1, lagP99Ms: 0, lagMaxMs: 0, rssMb: 80 },
    });
    expect([line.from, line.t]).toEqual([97, 99]);
  });
});
