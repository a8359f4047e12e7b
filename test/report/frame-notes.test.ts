import { describe, expect, it } from 'vitest';
import { framesNote, framesTotal } from '../../src/report/frame-notes.js';
import { buildSummary } from '../../src/report/summary.js';
import type { FrameFigures } from '../../src/result/frame-figures.js';
import { makeRun, makeStep } from '../fixtures/index.js';

const frames = (
  over: Partial<FrameFigures> = {},
  u: Partial<FrameFigures['unrecognised']> = {},
) => ({
  unrecognised: { null_payload: 0, no_stamp: 0, unknown_event: 0, ...u },
  malformed: 0,
  oversized: 0,
  ...over,
});

describe('the note on frames rtcap could not use', () => {
  it('names how many and why, in summary.md', () => {
    const f = frames({ malformed: 2, oversized: 1 }, { null_payload: 30, unknown_event: 1 });
    expect(framesTotal(f)).toBe(34);
    const run = makeRun('broadcast-public', [makeStep(1, { frames: f })]);
    expect(buildSummary(run).notes.filter((n) => n.startsWith('Step 1:'))).toEqual([
      "Step 1: 34 frames rtcap could not use — 30 with a null payload, 1 of an event rtcap does not handle, 2 not Phoenix frames (malformed: protocol errors), 1 over the client's size limit (refused with 1009: the connection closed); counted in result.json (frames), never as deliveries.",
    ]);
  });

  it('one frame is a frame', () => {
    const s = makeStep(2, { frames: frames({}, { no_stamp: 1 }) });
    expect(framesNote(s)).toBe(
      "Step 2: 1 frame rtcap could not use — 1 without rtcap's stamp; counted in result.json (frames), never as deliveries.",
    );
  });

  it('no note for none, nor for a result written before the count', () => {
    expect(framesNote(makeStep(1, { frames: frames() }))).toBeNull();
    expect(framesNote(makeStep(1))).toBeNull();
  });
});
