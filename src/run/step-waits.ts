/**
 * What a step's phases wait for on the merged per-second timeline, each wait bounded: the
 * connections of a shrink closed on both sides, the second after a ramp written.
 */
import type { Timeline } from '../figures/timeline.js';
import type { TimeseriesPoint } from '../result/timeseries-point.js';
import type { AbortFunnel } from './abort.js';

/** What the waits read (the timeline's seconds) and sleep on (the run's abort). */
export interface StepWaits {
  timeline: Timeline;
  funnel: AbortFunnel;
}

/**
 * Waits for a whole second after `sinceMs` with at most `n` sockets open (closes finished) and,
 * when the server's open files are sampled, the server done closing its side too: 30 s at most.
 * A server that still holds the sockets just closed (a busy one works through their closes
 * seconds later) would refuse the next step's connects for want of files it is about to free.
 */
export async function closedDown(r: StepWaits, n: number, sinceMs: number): Promise<void> {
  for (let waited = 0; waited < 30_000; waited += 500) {
    await r.funnel.sleep(500);
    const after = r.timeline.seconds.map((s) => s.point).filter((p) => p.t * 1000 > sinceMs);
    const last = after[after.length - 1];
    if (last && last.connections_open <= n && serverFilesSettled(after)) return;
  }
}

/**
 * Whether the server's open files, over the seconds after a close, stopped falling: the last
 * second's no fewer than the one before. True when the last second has no such sample (a server
 * rtcap cannot read the fd table of).
 */
export function serverFilesSettled(after: readonly TimeseriesPoint[]): boolean {
  const last = after[after.length - 1]?.server_open_files?.open;
  if (last === undefined) return true;
  const before = after[after.length - 2]?.server_open_files?.open;
  return before !== undefined && last >= before;
}

/** The longest a step that ends with its ramp waits for the second after it and a server sample. */
const AFTER_RAMP_WAIT_MS = 4_000;

/**
 * Waits (bounded) until the timeline has written a second that begins at or after the ramp's end,
 * and the server was sampled after the ramp. A step that ends with its ramp is over within a
 * second, before the processes' per-second lines and the once-a-second server sample that saw
 * it. Without them the step had no timeseries line and its server open files (which name an
 * open-file limit as what broke it) were never read. The second after the ramp is the first
 * whose server sample (the one nearest its end, within a second) was taken after the ramp: the
 * live line names the server's limit from it while the step is still the current one.
 */
export async function secondAfterRampWritten(r: StepWaits, rampEndMs: number): Promise<void> {
  const firstAfter = Math.ceil(rampEndMs / 1000);
  for (let waited = 0; waited < AFTER_RAMP_WAIT_MS; waited += 100) {
    const last = r.timeline.seconds[r.timeline.seconds.length - 1]?.point;
    const lineIn = last !== undefined && last.t >= firstAfter;
    const sampled = r.timeline.newestServerSampleMs;
    if (lineIn && (sampled === null || sampled > rampEndMs)) return;
    await r.funnel.sleep(100);
  }
}
