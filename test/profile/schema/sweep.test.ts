import { describe, expect, it } from 'vitest';
import { sweepOverrideSchema, sweepSchema } from '../../../src/profile/schema/sweep.js';

describe('sweepSchema', () => {
  it('a search needs a max, and a start no higher than it', () => {
    expect(sweepSchema.safeParse({ driver: 'connections' }).error?.issues[0]).toMatchObject({
      path: ['max'],
      message: 'required for a search (or list explicit `values`)',
    });
    expect(
      sweepSchema.safeParse({ driver: 'connections', start: 10, max: 5 }).error?.issues[0].message,
    ).toBe('start 10 is above max 5');
    expect(sweepSchema.parse({ driver: 'send_rate', values: [1, 2] })).toMatchObject({
      factor: 2,
      stop_after_broken: 2,
      recovery: { probe: true, messages: 5 },
    });
  });
});

describe('sweepOverrideSchema', () => {
  it('the same fields with their limits and no defaults', () => {
    expect(sweepOverrideSchema.parse({ max: 100 })).toEqual({ max: 100 });
    expect(sweepOverrideSchema.safeParse({ factor: 1 }).success).toBe(false);
  });
});
