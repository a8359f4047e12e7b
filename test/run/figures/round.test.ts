import { describe, expect, it } from 'vitest';
import { max, mean, r1, r3, r6, sumOf } from '../../../src/run/figures/round.js';

describe('rounding and small statistics', () => {
  it('rounds, averages, sums; null for no values', () => {
    expect([r1(1.25), r3(0.12345), r6(0.1234567)]).toEqual([1.3, 0.123, 0.123457]);
    expect([mean([1, 2, 6]), mean([]), max([1, 5, 2]), max([])]).toEqual([3, null, 5, null]);
    expect(sumOf([{ n: 2 }, { n: 3 }], (x) => x.n)).toBe(5);
  });
});
