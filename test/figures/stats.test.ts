import { describe, expect, it } from 'vitest';
import { max, mean } from '../../src/figures/stats.js';

describe('small statistics', () => {
  it('averages and takes the largest; null for no values', () => {
    expect([mean([1, 2, 6]), mean([]), max([1, 5, 2]), max([])]).toEqual([3, null, 5, null]);
  });
});
