import { describe, expect, it } from 'vitest';
import { thresholdEntrySchema } from '../../../src/profile/schema/thresholds.js';

describe('thresholdEntrySchema', () => {
  it('an expression, or the object form that can stop the run', () => {
    expect(thresholdEntrySchema.parse('p95_ms < 200')).toBe('p95_ms < 200');
    expect(thresholdEntrySchema.parse({ threshold: 'errors == 0' })).toEqual({
      threshold: 'errors == 0',
      abort_on_fail: false,
    });
    expect(thresholdEntrySchema.safeParse('').success).toBe(false);
  });
});
