import { describe, expect, it } from 'vitest';
import { analysisSchema } from '../../../src/profile/schema/analysis.js';

describe('analysisSchema', () => {
  it('the seed’s safe lines and headroom by default; a safe line is a percentage', () => {
    expect(analysisSchema.parse({})).toEqual({
      cpu_safe_pct: 70,
      mem_safe_pct: 85,
      join_headroom: 0.5,
    });
    expect(analysisSchema.safeParse({ cpu_safe_pct: 120 }).success).toBe(false);
  });
});
