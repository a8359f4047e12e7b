import { describe, expect, it } from 'vitest';
import { quotasSchema } from '../../../src/profile/schema/quotas.js';

describe('quotasSchema', () => {
  it('below, above and back below the declared value, with the target’s rate window', () => {
    expect(quotasSchema.parse({ max_concurrent_users: 200 })).toMatchObject({
      max_concurrent_users: 200,
      below: 0.8,
      above: 1.25,
      rate_tick: 5000,
      rate_buckets: 12,
      error_backoff: 5000,
    });
    expect(quotasSchema.safeParse({ below: 1 }).success).toBe(false);
  });
});
