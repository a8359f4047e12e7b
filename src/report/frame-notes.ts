/**
 * The note of a step whose connections got frames rtcap could not use (result.json `frames`,
 * docs/FIGURES.md "Frames rtcap could not use"): how many and why, so a frame that arrived is
 * never hidden behind a clean delivery rate. No note when there were none.
 */
import { fmtInt } from '../model/format.js';
import type { StepResult } from '../result/result.js';
import type { FrameFigures } from '../result/frame-figures.js';

/** Every frame of the step's count, whatever why. */
export function framesTotal(f: FrameFigures): number {
  const u = f.unrecognised;
  return u.null_payload + u.no_stamp + u.unknown_event + f.malformed + f.oversized;
}

/** "Step 1: 61 frames rtcap could not use: 30 with a null payload, …", or null when none. */
export function framesNote(s: StepResult): string | null {
  const f = s.frames;
  if (!f) return null;
  const total = framesTotal(f);
  if (total === 0) return null;
  const u = f.unrecognised;
  const parts: Array<[number, string]> = [
    [u.null_payload, 'with a null payload'],
    [u.no_stamp, "without rtcap's stamp"],
    [u.unknown_event, 'of an event rtcap does not handle'],
    [f.malformed, 'not Phoenix frames (malformed: protocol errors)'],
    [f.oversized, "over the client's size limit (refused with 1009: the connection closed)"],
  ];
  const why = parts
    .filter(([n]) => n > 0)
    .map(([n, what]) => `${fmtInt(n)} ${what}`)
    .join(', ');
  const frames = total === 1 ? 'frame' : 'frames';
  return `Step ${s.index}: ${fmtInt(total)} ${frames} rtcap could not use — ${why}; counted in result.json (frames), never as deliveries.`;
}
