import { describe, expect, it } from 'vitest';
import { generatorLimitsSchema } from '../../../src/profile/schema/generator.js';

describe('generatorLimitsSchema', () => {
  it('the limits docs/VERDICTS.md gives by default', () => {
    expect(generatorLimitsSchema.parse({})).toEqual({
      min_offered_ratio: 0.99,
      max_event_loop_lag_p99_ms: 50,
      max_cpu_pct: 90,
    });
  });
});
