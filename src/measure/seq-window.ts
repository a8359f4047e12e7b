/**
 * Which receipts of one stream on one connection are new, reordered or duplicates — exactly,
 * whatever the order the server delivered them in.
 *
 * A duplicate is the same connection receiving the same (stream, seq) twice, nothing else. A
 * receipt of a seq below the highest one seen, not seen before, is a delivery that arrived out
 * of order (reordered). Real servers reorder (clusters, REST and database broadcasts, proxies),
 * so a reordering must never look like a duplicate or a loss.
 *
 * Representation, cheap on the in-order path (one word read and written per receipt):
 *  - a sliding bitmap of the last SEQ_WINDOW_BITS seqs up to the highest seen;
 *  - below the bitmap, down to the window's floor (the lowest seq the first bitmap covered),
 *    every seq counts as seen except the `missing` ones: seqs that left the bitmap unseen,
 *    kept as sorted [lo, hi] intervals, so a run of losses is one entry and memory grows with
 *    the number of gaps, not of messages;
 *  - below the floor (a reordering around the first receipt, deeper than the bitmap): an exact
 *    Set of the seqs seen there.
 * A late arrival is looked up in `missing` (binary search): found → reordered delivery and
 * removed; not found → it was already seen, a duplicate.
 *
 * Windows are numbered slots in typed arrays shared by every window of a ledger (no object or
 * typed array per connection and stream): a receipt touches two numbers and one bitmap word.
 */

export const SEQ_WINDOW_BITS = 256;
const WORDS = SEQ_WINDOW_BITS / 32;
const MASK = SEQ_WINDOW_BITS - 1;

/** A receipt's class (numbers, not strings: this runs once per delivery). */
export const SEQ_NEW = 0;
export const SEQ_REORDERED = 1;
export const SEQ_DUPLICATE = 2;
export type SeqClass = typeof SEQ_NEW | typeof SEQ_REORDERED | typeof SEQ_DUPLICATE;

/** A window: its slot number in a SeqWindows. */
export type SeqWindow = number;

/** The windows of one ledger. */
export class SeqWindows {
  /** Per window: highest seq seen (seqs are per-step message numbers, far below 2³¹). */
  private high = new Int32Array(64);
  /** Per window: lowest seq the bitmap ever covered; below it only `early` knows what was seen. */
  private floor = new Int32Array(64);
  /** Per window, WORDS words: the bitmap of (high − SEQ_WINDOW_BITS, high]. */
  private words = new Uint32Array(64 * WORDS);
  /** Per window: seqs in [floor, high − SEQ_WINDOW_BITS] not seen, flat sorted pairs lo0, hi0, … */
  private missing: Array<number[] | null> = [];
  /** Per window: seqs below the floor that were seen. */
  private early: Array<Set<number> | null> = [];
  private used = 0;

  /** Forgets every window (the step boundary); windows opened before must not be used again. */
  reset(): void {
    this.used = 0;
    this.missing = [];
    this.early = [];
  }

  /** A window whose first receipt is `seq` (a new delivery). */
  open(seq: number): SeqWindow {
    const w = this.used++;
    if (w >= this.high.length) this.grow();
    this.high[w] = seq;
    this.floor[w] = Math.max(0, seq - SEQ_WINDOW_BITS + 1);
    this.words.fill(0, w * WORDS, (w + 1) * WORDS);
    this.missing[w] = null;
    this.early[w] = null;
    this.words[w * WORDS + ((seq & MASK) >>> 5)] |= 1 << (seq & 31);
    return w;
  }

  /** Classifies a receipt of `seq` and records it as seen. */
  classify(w: SeqWindow, seq: number): SeqClass {
    const high = this.high[w];
    const i = w * WORDS + ((seq & MASK) >>> 5);
    const bit = 1 << (seq & 31);
    if (seq === high + 1) {
      // In order, the common case: the seq leaving the bitmap (seq − SEQ_WINDOW_BITS) has the
      // same bit as the one entering it, so one word is read and written.
      const word = this.words[i];
      this.high[w] = seq;
      if ((word & bit) !== 0) return SEQ_NEW; // the leaving seq was seen; the bit stays set
      this.words[i] = word | bit;
      const left = seq - SEQ_WINDOW_BITS;
      if (left >= this.floor[w]) this.addMissing(w, left, left);
      return SEQ_NEW;
    }
    if (seq > high) {
      this.advance(w, seq);
      return SEQ_NEW;
    }
    if (seq > high - SEQ_WINDOW_BITS) {
      if ((this.words[i] & bit) !== 0) return SEQ_DUPLICATE;
      this.words[i] |= bit;
      return SEQ_REORDERED;
    }
    if (seq >= this.floor[w]) {
      const m = this.missing[w];
      return m !== null && takeMissing(m, seq) ? SEQ_REORDERED : SEQ_DUPLICATE;
    }
    const early = (this.early[w] ??= new Set());
    if (early.has(seq)) return SEQ_DUPLICATE;
    early.add(seq);
    return SEQ_REORDERED;
  }

  /** Moves the window up to `seq` (> high + 1); seqs leaving it unseen become missing. */
  private advance(w: SeqWindow, seq: number): void {
    const high = this.high[w];
    const floor = this.floor[w];
    const oldLow = high - SEQ_WINDOW_BITS + 1;
    const shift = seq - high;
    if (shift >= SEQ_WINDOW_BITS) {
      // The whole bitmap leaves; seqs between it and the new window never entered one.
      for (let s = Math.max(oldLow, floor); s <= high; s++)
        if (!this.has(w, s)) this.addMissing(w, s, s);
      if (seq - SEQ_WINDOW_BITS >= high + 1) this.addMissing(w, high + 1, seq - SEQ_WINDOW_BITS);
      this.words.fill(0, w * WORDS, (w + 1) * WORDS);
    } else {
      for (let s = oldLow; s < oldLow + shift; s++) {
        if (s >= floor && !this.has(w, s)) this.addMissing(w, s, s);
        this.words[w * WORDS + ((s & MASK) >>> 5)] &= ~(1 << (s & 31));
      }
    }
    this.high[w] = seq;
    this.words[w * WORDS + ((seq & MASK) >>> 5)] |= 1 << (seq & 31);
  }

  private has(w: SeqWindow, seq: number): boolean {
    return (this.words[w * WORDS + ((seq & MASK) >>> 5)] & (1 << (seq & 31))) !== 0;
  }

  /** Appends [lo, hi] above every interval held (seqs leave the bitmap in increasing order). */
  private addMissing(w: SeqWindow, lo: number, hi: number): void {
    const m = (this.missing[w] ??= []);
    if (m.length > 0 && m[m.length - 1] === lo - 1) m[m.length - 1] = hi;
    else m.push(lo, hi);
  }

  private grow(): void {
    const n = this.high.length * 2;
    const high = new Int32Array(n);
    high.set(this.high);
    this.high = high;
    const floor = new Int32Array(n);
    floor.set(this.floor);
    this.floor = floor;
    const words = new Uint32Array(n * WORDS);
    words.set(this.words);
    this.words = words;
  }
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
