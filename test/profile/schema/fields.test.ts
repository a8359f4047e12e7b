import { describe, expect, it } from 'vitest';
import { duration, nonNegInt, positiveInt } from '../../../src/profile/schema/fields.js';

describe('duration', () => {
  it('a duration string or seconds, parsed to milliseconds; anything else named', () => {
    expect(duration.parse('1m30s')).toBe(90_000);
    expect(duration.parse(2)).toBe(2000);
    const bad = duration.safeParse('soon');
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0].message).toMatch(/^not a duration: "soon"/);
  });
});

describe('integer kinds', () => {
  it('positive excludes 0, non-negative takes it; neither takes a fraction', () => {
    expect(positiveInt.safeParse(0).success).toBe(false);
    expect(nonNegInt.safeParse(0).success).toBe(true);
    expect(nonNegInt.safeParse(1.5).success).toBe(false);
  });
});
