/**
 * How long a process's connections were down while load.reconnect brought them back (a server
 * restarted mid-step): per connection, the time from its drop to its reconnect's join, and over
 * the step the gap from the first drop to the last rejoin. Connections rtcap closed itself are
 * not drops.
 */

export interface ReconnectGapSummary {
  /** Members dropped by the server or the network. */
  dropped: number;
  /** Of those, connections whose reconnect joined again in the step. */
  reconnected: number;
  /** The longest one connection was down before its reconnect joined, ms (0: none). */
  longestDownMs: number;
  /** Epoch ms of the first drop and of the last rejoin after one (0 when none). */
  firstDropMs: number;
  lastRejoinMs: number;
}

export class ReconnectGap {
  /** Connection index → when it was dropped, while its reconnect has not joined yet. */
  private readonly down = new Map<number, number>();
  private readonly sum: ReconnectGapSummary = {
    dropped: 0,
    reconnected: 0,
    longestDownMs: 0,
    firstDropMs: 0,
    lastRejoinMs: 0,
  };

  dropped(index: number, atMs: number): void {
    this.sum.dropped++;
    if (!this.down.has(index)) this.down.set(index, atMs);
    if (this.sum.firstDropMs === 0) this.sum.firstDropMs = atMs;
  }

  /** A reconnect of connection `index` joined at `atMs`. */
  rejoined(index: number, atMs: number): void {
    const since = this.down.get(index);
    if (since === undefined) return;
    this.down.delete(index);
    this.sum.reconnected++;
    this.sum.longestDownMs = Math.max(this.sum.longestDownMs, atMs - since);
    this.sum.lastRejoinMs = Math.max(this.sum.lastRejoinMs, atMs);
  }

  summary(): ReconnectGapSummary {
    return { ...this.sum };
  }
}

/** The step's gap over every process: counts summed, the gap from the earliest drop. */
export function mergeReconnectGaps(parts: readonly ReconnectGapSummary[]): ReconnectGapSummary {
  const out: ReconnectGapSummary = {
    dropped: 0,
    reconnected: 0,
    longestDownMs: 0,
    firstDropMs: 0,
    lastRejoinMs: 0,
  };
  for (const p of parts) {
    out.dropped += p.dropped;
    out.reconnected += p.reconnected;
    out.longestDownMs = Math.max(out.longestDownMs, p.longestDownMs);
    if (p.firstDropMs > 0 && (out.firstDropMs === 0 || p.firstDropMs < out.firstDropMs))
      out.firstDropMs = p.firstDropMs;
    out.lastRejoinMs = Math.max(out.lastRejoinMs, p.lastRejoinMs);
  }
  return out;
}
