/**
 * Acked sends (load.ack): what the server acknowledged, refused, left unanswered. A send
 * counts as taken by the server only once acknowledged; the write-only
 * throughput is the acks' rate, counted by ack time.
 */
import { r1 } from '../util/round.js';

export interface AckFigures {
  /** Acks (ok) received within load.ack_timeout. */
  acked: number;
  /** Sends the server refused (an error reply). */
  ackErrors: number;
  /** Sends with no reply within load.ack_timeout or by the end of the step. */
  unacked: number;
  /**
   * Sends made while the generator's pending-ack state was full: not matched, not counted acked.
   */
  untracked: number;
}

/** Sums what every generator process counted. */
export function ackFigures(
  collected: ReadonlyArray<{
    acks: { ok?: number; errors?: number; unacked?: number; untracked?: number };
  }>,
): AckFigures {
  const out: AckFigures = { acked: 0, ackErrors: 0, unacked: 0, untracked: 0 };
  for (const c of collected) {
    out.acked += c.acks.ok ?? 0;
    out.ackErrors += c.acks.errors ?? 0;
    out.unacked += c.acks.unacked ?? 0;
    out.untracked += c.acks.untracked ?? 0;
  }
  return out;
}

/**
 * Acks per second: acks (ok) counted by the second they arrived in, averaged over the whole
 * seconds of the steady window (a per-second rate, as seed 002's rates are). Null when no ack
 * was asked for or the window holds no whole second.
 */
export function ackedPerS(
  ackRequested: boolean,
  steadySeconds: ReadonlyArray<{ point: { acked_per_s?: number } }>,
): number | null {
  if (!ackRequested || steadySeconds.length === 0) return null;
  const total = steadySeconds.reduce((a, s) => a + (s.point.acked_per_s ?? 0), 0);
  return r1(total / steadySeconds.length);
}
