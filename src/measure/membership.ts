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
}

export class Membership {
  private readonly joins: Float64Array;
  private readonly leaves: Float64Array;
  private readonly drops: Float64Array;

  constructor(intervals: MemberInterval[]) {
    this.joins = Float64Array.from(intervals.map((i) => i.joinedAtMs)).sort();
    this.leaves = Float64Array.from(
      intervals.filter((i) => Number.isFinite(i.leftAtMs)).map((i) => i.leftAtMs),
    ).sort();
    this.drops = Float64Array.from(
      intervals.filter((i) => i.dropped && Number.isFinite(i.leftAtMs)).map((i) => i.leftAtMs),
    ).sort();
  }

  /** Members dropped (not closed by rtcap) after `from` and at or before `to`. */
  droppedIn(from: number, to: number): number {
    return upperBound(this.drops, to) - upperBound(this.drops, from);
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
