import { describe, expect, it } from 'vitest';
import { sumOf } from '../../src/util/sum.js';

describe('sumOf', () => {
  it('sums one number over a list; 0 for none', () => {
    expect(sumOf([{ n: 2 }, { n: 3 }], (x) => x.n)).toBe(5);
    expect(sumOf([] as { n: number }[], (x) => x.n)).toBe(0);
  });
});
