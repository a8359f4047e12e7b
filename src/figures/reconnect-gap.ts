/**
 * A step's drops and the reconnects that brought them back (load.reconnect), over every
 * generator process: how many were dropped, how many reconnected and joined again, the longest
 * one connection was down, and the gap from the first drop to the last rejoin — a server
 * restarted mid-step, ridden out. Absent when the step does not reconnect or nothing dropped.
 */
import type { StepCollected } from '../generator/ipc.js';
import { mergeReconnectGaps } from '../generator/reconnect-gap.js';
import type { StepResult } from '../result/result.js';

export function reconnectGapOf(
  collected: readonly StepCollected[],
  reconnects: boolean,
): StepResult['connections']['reconnect'] {
  const gaps = collected.flatMap((c) => (c.connections.gap ? [c.connections.gap] : []));
  const g = mergeReconnectGaps(gaps);
  if (!reconnects || g.dropped === 0) return undefined;
  return {
    dropped: g.dropped,
    reconnected: g.reconnected,
    longest_down_ms: g.longestDownMs,
    gap_ms: g.lastRejoinMs > 0 ? g.lastRejoinMs - g.firstDropMs : null,
  };
}

/** Sends not made because their sender's connection was down (dropped, not back yet). */
export function sendsWhileDown(collected: readonly StepCollected[]): number {
  let n = 0;
  for (const c of collected) n += c.sendStats.connectionDown ?? 0;
  return n;
}
