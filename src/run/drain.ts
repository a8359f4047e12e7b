/**
 * The drain after a step's last send: how long rtcap waits for messages and acks still in flight.
 */
import { nowMs } from '../measure/clock.js';
import type { Timeline } from '../figures/timeline.js';

/**
 * Ends at the first whole second after the sends with no receipt and no ack awaited (once
 * `settleMs` passed), or at `maxMs`; acks still pending then are counted unacked.
 */
export async function drain(
  timeline: Timeline,
  o: {
    steadyEndMs: number;
    settleMs: number;
    maxMs: number;
    sleep: (ms: number) => Promise<void>;
  },
): Promise<void> {
  const { steadyEndMs, settleMs, maxMs, sleep } = o;
  const start = nowMs();
  while (nowMs() - start < maxMs) {
    await sleep(200);
    if (nowMs() - start < settleMs) continue;
    const quiet = timeline.seconds.some(
      (s) =>
        s.point.t * 1000 >= steadyEndMs &&
        s.point.delivered_per_s === 0 &&
        (s.point.acks_pending ?? 0) === 0,
    );
    if (quiet) return;
  }
}
