/**
 * A step's frames its receiving connections could not use (result.json `frames`, docs/FIGURES.md
 * "Frames rtcap could not use"): each generator process's counts summed, as every plain count
 * is, over the processes of a machine and the segments of a split run. A process that reported
 * none (a shard written before these counts) adds nothing.
 */
import type { StepCollected } from '../generator/ipc.js';
import type { FrameFigures } from '../result/frame-figures.js';

export function stepFrames(collected: ReadonlyArray<Pick<StepCollected, 'frames'>>): FrameFigures {
  const out: FrameFigures = {
    unrecognised: { null_payload: 0, no_stamp: 0, unknown_event: 0 },
    malformed: 0,
    oversized: 0,
  };
  for (const { frames: f } of collected) {
    if (!f) continue;
    out.unrecognised.null_payload += f.nullPayload;
    out.unrecognised.no_stamp += f.noStamp;
    out.unrecognised.unknown_event += f.unknownEvent;
    out.malformed += f.malformed;
    out.oversized += f.oversized;
  }
  return out;
}
