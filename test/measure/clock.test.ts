import { describe, expect, it } from 'vitest';
import { clockOffsetFromEnv } from '../../src/measure/clock.js';

describe('RTCAP_CLOCK_OFFSET_MS', () => {
  it('shifts the clock by the ms given; unset or empty is the system clock; nonsense is refused naming the variable', () => {
    expect(clockOffsetFromEnv(undefined)).toBe(0);
    expect(clockOffsetFromEnv('')).toBe(0);
    expect(clockOffsetFromEnv('-400')).toBe(-400);
    expect(clockOffsetFromEnv('700.5')).toBe(700.5);
    expect(() => clockOffsetFromEnv('5s')).toThrow(
      'RTCAP_CLOCK_OFFSET_MS: "5s" is not a number of ms within ±1 day',
    );
    expect(() => clockOffsetFromEnv('1e9')).toThrow(/within ±1 day/);
  });
});
