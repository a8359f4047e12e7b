/**
 * What a step's phases wait for on the merged per-second timeline, each wait bounded: the
 * connections of a shrink closed, the second a ramp ended in written.
 */
import type { Timeline } from '../figures/timeline.js';
import type { AbortFunnel } from './abort.js';

/** What the waits read (the timeline's seconds) and sleep on (the run's abort). */
export interface StepWaits {
  timeline: Timeline;
  funnel: AbortFunnel;
}

/**
 * Waits for a whole second after `sinceMs` with at most `n` sockets open (closes finished), 30 s at
 * most.
 */
export async function closedDown(r: StepWaits, n: number, sinceMs: number): Promise<void> {
  for (let waited = 0; waited < 30_000; waited += 500) {
    await r.funnel.sleep(500);
    const last = r.timeline.seconds[r.timeline.seconds.length - 1]?.point;
    if (last && last.t * 1000 > sinceMs && last.connections_open <= n) return;
  }
}

/** The longest a step that ends with its ramp waits for that second's line and server sample. */
const RAMP_SECOND_WAIT_MS = 2_500;

/**
 * Waits (bounded) until the second the ramp ended in is written to the timeline and the server
 * was sampled after it: a step that ends with its ramp is over within a second, before the
 * processes' per-second line and the once-a-second server sample that saw it. Without them the
 * step had no timeseries line, and the server's open files at the ramp, which name an open-file
 * limit as what broke it, were never read.
 */
export async function rampSecondWritten(r: StepWaits, rampEndMs: number): Promise<void> {
  for (let waited = 0; waited < RAMP_SECOND_WAIT_MS; waited += 100) {
    const last = r.timeline.seconds[r.timeline.seconds.length - 1]?.point;
    const lineIn = last !== undefined && (last.t + 1) * 1000 > rampEndMs;
    const sampled = r.timeline.newestServerSampleMs;
    if (lineIn && (sampled === null || sampled > rampEndMs)) return;
    await r.funnel.sleep(100);
  }
}
