import { describe, expect, it } from 'vitest';
import { sloSchema } from '../../../src/profile/schema/slo.js';

describe('sloSchema', () => {
  it('p95 200 ms, every message, every join by default; a rate is a share', () => {
    expect(sloSchema.parse({})).toEqual({
      p95_ms: 200,
      delivery_rate: 1,
      join_p95_ms: 2000,
      join_success: 1,
    });
    expect(sloSchema.safeParse({ delivery_rate: 1.5 }).success).toBe(false);
  });
});
