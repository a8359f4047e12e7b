/**
 * Which receipts of one stream on one connection are new, reordered or duplicates — exactly,
 * whatever the order the server delivered them in (issue 8 item 1).
 *
 * A duplicate is the same connection receiving the same (stream, seq) twice, nothing else. A
 * receipt of a seq below the highest one seen, not seen before, is a delivery that arrived out
 * of order (reordered). Real servers reorder (clusters, REST and database broadcasts, proxies),
 * so a reordering must never look like a duplicate or a loss.
 *
 * Representation, cheap on the in-order path (a few bit operations per receipt):
 *  - a sliding bitmap of the last SEQ_WINDOW_BITS seqs up to the highest seen, held in a pool
 *    of words shared by every window of the ledger (no typed array per connection);
 *  - below the bitmap, down to the window's floor (the lowest seq the first bitmap covered),
 *    every seq counts as seen except the `missing` ones: seqs that left the bitmap unseen,
 *    kept as sorted [lo, hi] intervals, so a run of losses is one entry and memory grows with
 *    the number of gaps, not of messages;
 *  - below the floor (a reordering around the first receipt, deeper than the bitmap): an exact
 *    Set of the seqs seen there.
 * A late arrival is looked up in `missing` (binary search): found → reordered delivery and
 * removed; not found → it was already seen, a duplicate.
 */

export const SEQ_WINDOW_BITS = 256;
const WORDS = SEQ_WINDOW_BITS / 32;
const MASK = SEQ_WINDOW_BITS - 1;

/** A receipt's class (numbers, not strings: this runs once per delivery). */
export const SEQ_NEW = 0;
export const SEQ_REORDERED = 1;
export const SEQ_DUPLICATE = 2;
export type SeqClass = typeof SEQ_NEW | typeof SEQ_REORDERED | typeof SEQ_DUPLICATE;

export interface SeqWindow {
  /** Highest seq seen. */
  high: number;
  /** Lowest seq the bitmap ever covered; below it only `early` knows what was seen. */
  floor: number;
  /** Index of the window's words in the pool. */
  slot: number;
  /** Seqs in [floor, high − SEQ_WINDOW_BITS] not seen: flat sorted pairs lo0, hi0, lo1, hi1, … */
  missing: number[] | null;
  /** Seqs below the floor that were seen. */
  early: Set<number> | null;
}

/** The windows of one ledger, and their shared pool of bitmap words. */
export class SeqWindows {
  private words = new Uint32Array(WORDS * 64);
  private used = 0;

  /** Forgets every window (the step boundary); windows opened before must not be used again. */
  reset(): void {
    this.used = 0;
  }

  /** A window whose first receipt is `seq` (a new delivery). */
  open(seq: number): SeqWindow {
    const slot = this.used++;
    if ((slot + 1) * WORDS > this.words.length) {
      const grown = new Uint32Array(this.words.length * 2);
      grown.set(this.words);
      this.words = grown;
    }
    this.words.fill(0, slot * WORDS, (slot + 1) * WORDS);
    const w: SeqWindow = { high: seq, floor: Math.max(0, seq - SEQ_WINDOW_BITS + 1), slot, missing: null, early: null };
    this.set(w, seq);
    return w;
  }

  /** Classifies a receipt of `seq` and records it as seen. */
  classify(w: SeqWindow, seq: number): SeqClass {
    if (seq > w.high) {
      this.advance(w, seq);
      return SEQ_NEW;
    }
    if (seq > w.high - SEQ_WINDOW_BITS) {
      const i = w.slot * WORDS + ((seq & MASK) >>> 5);
      const bit = 1 << (seq & 31);
      if ((this.words[i] & bit) !== 0) return SEQ_DUPLICATE;
      this.words[i] |= bit;
      return SEQ_REORDERED;
    }
    if (seq >= w.floor) return w.missing !== null && takeMissing(w.missing, seq) ? SEQ_REORDERED : SEQ_DUPLICATE;
    const early = (w.early ??= new Set());
    if (early.has(seq)) return SEQ_DUPLICATE;
    early.add(seq);
    return SEQ_REORDERED;
  }

  /** Moves the window up to `seq`; seqs leaving it unseen become missing. */
  private advance(w: SeqWindow, seq: number): void {
    const oldLow = w.high - SEQ_WINDOW_BITS + 1;
    const shift = seq - w.high;
    if (shift >= SEQ_WINDOW_BITS) {
      // The whole bitmap leaves; seqs between it and the new window never entered one.
      for (let s = Math.max(oldLow, w.floor); s <= w.high; s++) if (!this.has(w, s)) addMissing(w, s, s);
      if (seq - SEQ_WINDOW_BITS >= w.high + 1) addMissing(w, w.high + 1, seq - SEQ_WINDOW_BITS);
      this.words.fill(0, w.slot * WORDS, (w.slot + 1) * WORDS);
    } else {
      for (let s = oldLow; s < oldLow + shift; s++) {
        if (s >= w.floor && !this.has(w, s)) addMissing(w, s, s);
        this.clear(w, s);
      }
    }
    w.high = seq;
    this.set(w, seq);
  }

  private has(w: SeqWindow, seq: number): boolean {
    return (this.words[w.slot * WORDS + ((seq & MASK) >>> 5)] & (1 << (seq & 31))) !== 0;
  }

  private set(w: SeqWindow, seq: number): void {
    this.words[w.slot * WORDS + ((seq & MASK) >>> 5)] |= 1 << (seq & 31);
  }

  private clear(w: SeqWindow, seq: number): void {
    this.words[w.slot * WORDS + ((seq & MASK) >>> 5)] &= ~(1 << (seq & 31));
  }
}

/** Appends [lo, hi] above every interval held (seqs leave the bitmap in increasing order). */
function addMissing(w: SeqWindow, lo: number, hi: number): void {
  const m = (w.missing ??= []);
  if (m.length > 0 && m[m.length - 1] === lo - 1) m[m.length - 1] = hi;
  else m.push(lo, hi);
}

/** Removes `seq` from the intervals if it is in one; true when it was. */
export function takeMissing(m: number[], seq: number): boolean {
  let a = 0;
  let b = m.length / 2 - 1;
  while (a <= b) {
    const mid = (a + b) >>> 1;
    const lo = m[2 * mid];
    const hi = m[2 * mid + 1];
    if (seq < lo) b = mid - 1;
    else if (seq > hi) a = mid + 1;
    else {
      if (lo === hi) m.splice(2 * mid, 2);
      else if (seq === lo) m[2 * mid] = lo + 1;
      else if (seq === hi) m[2 * mid + 1] = hi - 1;
      else m.splice(2 * mid, 2, lo, seq - 1, seq + 1, hi);
      return true;
    }
  }
  return false;
}
