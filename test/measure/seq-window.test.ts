import { describe, expect, it } from 'vitest';
import {
  SEQ_DUPLICATE,
  SEQ_NEW,
  SEQ_REORDERED,
  SEQ_WINDOW_BITS,
  SeqWindows,
  takeMissing,
  type SeqClass,
} from '../../src/measure/seq-window.js';

const W = SEQ_WINDOW_BITS;

/** Classifies a sequence of receipts on one fresh window. */
function classifyAll(seqs: number[], windows = new SeqWindows()): SeqClass[] {
  const w = windows.open(seqs[0]);
  return [SEQ_NEW, ...seqs.slice(1).map((s) => windows.classify(w, s))];
}

/**
 * The definition, with no window: new above the highest, reordered if first below it, else
 * duplicate.
 */
function reference(seqs: number[]): SeqClass[] {
  const seen = new Set<number>();
  let high = -1;
  return seqs.map((s) => {
    if (seen.has(s)) return SEQ_DUPLICATE;
    seen.add(s);
    if (s > high) {
      high = s;
      return SEQ_NEW;
    }
    return SEQ_REORDERED;
  });
}

/** A small deterministic PRNG (mulberry32): the same cases on every run. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('SeqWindows.classify', () => {
  it('in order: all new', () => {
    const seqs = Array.from({ length: 3 * W }, (_, i) => i);
    expect(classifyAll(seqs).every((c) => c === SEQ_NEW)).toBe(true);
  });

  it('a repeat is a duplicate: in the window, at the highest, and far below it', () => {
    expect(classifyAll([0, 1, 1, 0])).toEqual([SEQ_NEW, SEQ_NEW, SEQ_DUPLICATE, SEQ_DUPLICATE]);
    const far = Array.from({ length: 2 * W + 5 }, (_, i) => i);
    expect(classifyAll([...far, 3]).at(-1)).toBe(SEQ_DUPLICATE);
  });

  it('a first receipt below the highest is reordered, in the window or far outside it', () => {
    expect(classifyAll([0, 2, 1])).toEqual([SEQ_NEW, SEQ_NEW, SEQ_REORDERED]);
    const skip5 = Array.from({ length: 2 * W }, (_, i) => i).filter((i) => i !== 5);
    expect(classifyAll([...skip5, 5, 5]).slice(-2)).toEqual([SEQ_REORDERED, SEQ_DUPLICATE]);
  });

  it('a jump of more than the window keeps the skipped seqs as missing, exactly', () => {
    const jump = 10 * W;
    const got = classifyAll([0, 2, jump, 1, W, jump - W, jump - W + 1, 1, W, 3]);
    expect(got).toEqual([
      SEQ_NEW,
      SEQ_NEW,
      SEQ_NEW,
      SEQ_REORDERED,
      SEQ_REORDERED,
      SEQ_REORDERED,
      SEQ_REORDERED,
      SEQ_DUPLICATE,
      SEQ_DUPLICATE,
      SEQ_REORDERED,
    ]);
  });

  it('reordering around the first receipt, deeper than the window (below the floor)', () => {
    expect(classifyAll([5 * W, 3, 3, 5 * W - 1, 0])).toEqual([
      SEQ_NEW,
      SEQ_REORDERED,
      SEQ_DUPLICATE,
      SEQ_REORDERED,
      SEQ_REORDERED,
    ]);
  });

  it('agrees with the definition on shuffled, repeated and gapped receipts', () => {
    const rand = rng(8);
    for (let round = 0; round < 200; round++) {
      const n = 1 + Math.floor(rand() * 2000);
      // In order with: drops, local swaps, far-late arrivals, repeats, big jumps.
      const seqs: number[] = [];
      let next = Math.floor(rand() * 3 * W);
      const late: number[] = [];
      for (let i = 0; i < n; i++) {
        const r = rand();
        if (r < 0.05)
          next += 1 + Math.floor(rand() * (r < 0.01 ? 4 * W : 3)); // gap
        else if (r < 0.1 && seqs.length)
          seqs.push(seqs[Math.floor(rand() * seqs.length)]); // repeat
        else if (r < 0.15)
          late.push(next++); // held back, delivered much later
        else seqs.push(next++);
        if (late.length && rand() < 0.02) seqs.push(late.shift()!);
        if (seqs.length > 2 && rand() < 0.05) {
          const j = seqs.length - 1;
          const k = Math.max(0, j - 1 - Math.floor(rand() * 40));
          [seqs[j], seqs[k]] = [seqs[k], seqs[j]];
        }
      }
      seqs.push(...late);
      if (seqs.length === 0) continue;
      expect(classifyAll(seqs), `round ${round}`).toEqual(reference(seqs));
    }
  });

  it('windows of one pool are independent, and a reset pool starts them clean', () => {
    const windows = new SeqWindows();
    const all = Array.from({ length: 100 }, (_, i) => windows.open(i));
    for (const [i, w] of all.entries()) expect(windows.classify(w, i + 1)).toBe(SEQ_NEW);
    for (const [i, w] of all.entries()) expect(windows.classify(w, i)).toBe(SEQ_DUPLICATE);
    windows.reset();
    const w = windows.open(50);
    expect(windows.classify(w, 51)).toBe(SEQ_NEW);
    expect(windows.classify(w, 49)).toBe(SEQ_REORDERED);
  });
});

describe('takeMissing', () => {
  it('removes a seq from the interval holding it, splitting it; false when none does', () => {
    const m = [2, 2, 5, 9, 20, 30];
    expect(takeMissing(m, 2)).toBe(true);
    expect(m).toEqual([5, 9, 20, 30]);
    expect(takeMissing(m, 7)).toBe(true);
    expect(m).toEqual([5, 6, 8, 9, 20, 30]);
    expect(takeMissing(m, 20)).toBe(true);
    expect(takeMissing(m, 30)).toBe(true);
    expect(m).toEqual([5, 6, 8, 9, 21, 29]);
    for (const s of [0, 4, 7, 10, 19, 20, 30, 31])
      expect(takeMissing(m, s), `seq ${s}`).toBe(false);
  });
});
