import { describe, expect, it } from 'vitest';
import { ALIGN_MARGIN_MS, segmentSchedule } from '../../src/run/segment-schedule.js';

describe('segmentSchedule', () => {
  it('gives every step its ramp, margin, warm-up, steady window and longest drain, from the profile alone', () => {
    const load = { warmup: 1000, drain: 3000 } as never;
    const s = segmentSchedule(10_000, { load }, [
      { connections: 100, joinRatePerS: 50, durationMs: 5000 },
      { connections: 150, joinRatePerS: 50, durationMs: 5000 },
    ]);
    expect(s[0]).toEqual({
      rampStartMs: 10_000,
      steadyStartMs: 10_000 + 2000 + ALIGN_MARGIN_MS + 1000,
    });
    const next = s[0].steadyStartMs + 5000 + 3000 + ALIGN_MARGIN_MS;
    expect(s[1]).toEqual({
      rampStartMs: next,
      steadyStartMs: next + 1000 + ALIGN_MARGIN_MS + 1000,
    });
  });
});
