import { describe, expect, it } from 'vitest';
import { stepFrames } from '../../src/figures/frames.js';
import { newFrameCounts } from '../../src/generator/step-counters.js';

describe("a step's frames rtcap could not use", () => {
  it("sums every process's counts; one that reported none (an older shard) adds nothing", () => {
    const a = { ...newFrameCounts(), nullPayload: 3, noStamp: 1, malformed: 2 };
    const b = { ...newFrameCounts(), nullPayload: 4, unknownEvent: 5, oversized: 1 };
    expect(stepFrames([{ frames: a }, { frames: b }, {}])).toEqual({
      unrecognised: { null_payload: 7, no_stamp: 1, unknown_event: 5 },
      malformed: 2,
      oversized: 1,
    });
  });

  it('zeros when nothing was counted: a measurement of none, not a missing one', () => {
    expect(stepFrames([{ frames: newFrameCounts() }])).toEqual({
      unrecognised: { null_payload: 0, no_stamp: 0, unknown_event: 0 },
      malformed: 0,
      oversized: 0,
    });
  });
});
