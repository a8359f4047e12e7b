import { describe, expect, it } from 'vitest';
import type { StepCollected } from '../../src/generator/ipc.js';
import { clockOffsets } from '../../src/shard/clock-offsets.js';

/** A process's collection holding only first receipt times: `first[seq]`, NaN = not received. */
function collected(segment: number, stream: number, first: number[]): StepCollected {
  return {
    segment,
    receipts: {
      streams: [
        {
          stream,
          count: Uint32Array.from(first.map((t) => (Number.isNaN(t) ? 0 : 1))),
          first: Float64Array.from(first.map((t) => (Number.isNaN(t) ? 0 : t))),
          last: Float64Array.from(first.map((t) => (Number.isNaN(t) ? 0 : t))),
        },
      ],
    },
  } as unknown as StepCollected;
}

describe('clock offsets from first receipts', () => {
  it("each segment's offset against segment 0 is the median difference of the same messages' first receipts", () => {
    const base = [1000, 1100, 1200, 1300, 1400];
    // Segment 1 is 700 ms ahead, its fan-out 0–4 ms later; segment 2 is 400 ms behind and
    // its second process holds the earlier receipt of seq 2 (the earliest over processes counts).
    const s1 = [1700, 1801, 1902, 2003, 2104];
    const steps = [
      {
        collected: [
          collected(0, 3, base),
          collected(1, 3, s1),
          collected(2, 3, [600, 700, 810, 900, NaN]),
          collected(2, 3, [NaN, NaN, 800, NaN, NaN]),
        ],
      },
    ];
    const out = clockOffsets(steps, 3);
    expect(out).toEqual([
      { segment: 1, offset_ms: 702, iqr_ms: 2, messages: 5 },
      // Differences −400 × 4 (seq 4 not received there).
      { segment: 2, offset_ms: -400, iqr_ms: 0, messages: 4 },
    ]);
  });

  it('pools every step; a segment that shares no message with segment 0 is left out', () => {
    const steps = [
      { collected: [collected(0, 1, [10, 20]), collected(1, 1, [15, 25])] },
      { collected: [collected(0, 1, [30]), collected(1, 1, [38]), collected(2, 9, [40])] },
    ];
    expect(clockOffsets(steps, 3)).toEqual([
      { segment: 1, offset_ms: 5, iqr_ms: 1.5, messages: 3 },
    ]);
  });
});
