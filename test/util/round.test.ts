import { describe, expect, it } from 'vitest';
import { r1, r2, r3, r6 } from '../../src/util/round.js';

describe('rounding', () => {
  it('rounds to 1, 2, 3 and 6 decimals, halves up', () => {
    expect([r1(1.25), r2(0.125), r3(0.12345), r6(0.1234567)]).toEqual([1.3, 0.13, 0.123, 0.123457]);
    expect([r1(-1.25), r1(0), r3(2)]).toEqual([-1.2, 0, 2]);
  });
});
