import { describe, expect, it } from 'vitest';
import { CAPACITY_DIMENSIONS, formatCapacityValue } from '../../src/model/capacity-dimensions.js';

describe('CAPACITY_DIMENSIONS', () => {
  it('seed 002 §7: twelve rows numbered in order, each id once', () => {
    expect(CAPACITY_DIMENSIONS.map((d) => d.no)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(new Set(CAPACITY_DIMENSIONS.map((d) => d.id)).size).toBe(12);
  });
});

describe('formatCapacityValue', () => {
  it('per unit; floor keeps 3 significant figures, never for bytes', () => {
    expect(formatCapacityValue(null, 'connections')).toBe('—');
    expect(formatCapacityValue(21_250, 'connections')).toBe('21,250');
    expect(formatCapacityValue(21_250, 'connections', true)).toBe('21,200');
    expect(formatCapacityValue(26_798, 'per_s', true)).toBe('26,700/s');
    expect(formatCapacityValue(62.5, 'per_s')).toBe('62.5/s');
    expect(formatCapacityValue(10_240, 'bytes', true)).toBe(formatCapacityValue(10_240, 'bytes'));
  });
});
