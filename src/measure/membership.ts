/**
 * Who was a member of a topic at a given moment: the basis of "expected" (seed 002's
 * method: delivery rate = messages received ÷ messages that should have been received; expected
 * counts the members joined when the message was sent).
 */
export interface MemberInterval {
  joinedAtMs: number;
  /** Infinity while still joined. */
  leftAtMs: number;
  /** It left because the server or the network dropped it (not closed by rtcap). */
  dropped?: boolean;
  /**
   * The connection's global index, kept with a drop: a sender dropped right after its own
   * message is not a recipient that missed it.
   */
  conn?: number;
}

export class Membership {
  private readonly joins: Float64Array;
  private readonly leaves: Float64Array;
  private readonly drops: Float64Array;
  /** The drop times of each connection whose drop was reported with its index. */
  private readonly dropsOf = new Map<number, number[]>();

  constructor(intervals: MemberInterval[]) {
    this.joins = Float64Array.from(intervals.map((i) => i.joinedAtMs)).sort();
    this.leaves = Float64Array.from(
      intervals.filter((i) => Number.isFinite(i.leftAtMs)).map((i) => i.leftAtMs),
    ).sort();
    this.drops = Float64Array.from(
      intervals.filter((i) => i.dropped && Number.isFinite(i.leftAtMs)).map((i) => i.leftAtMs),
    ).sort();
    for (const i of intervals) {
      if (!i.dropped || i.conn === undefined || !Number.isFinite(i.leftAtMs)) continue;
      const times = this.dropsOf.get(i.conn);
      if (times) times.push(i.leftAtMs);
      else this.dropsOf.set(i.conn, [i.leftAtMs]);
    }
  }

  /**
   * Members dropped (not closed by rtcap) after `from` and at or before `to`, connection
   * `except` (a sender that does not receive its own message) not counted.
   */
  droppedIn(from: number, to: number, except: number | null = null): number {
    const all = upperBound(this.drops, to) - upperBound(this.drops, from);
    if (except === null) return all;
    const own = this.dropsOf.get(except) ?? [];
    return all - own.filter((t) => t > from && t <= to).length;
  }

  /** Members joined at or before `t` and not yet gone at `t`. */
  at(t: number): number {
    return upperBound(this.joins, t) - upperBound(this.leaves, t);
  }

  get size(): number {
    return this.joins.length;
  }
}

/** Number of elements ≤ x in a sorted array. */
function upperBound(a: Float64Array, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
