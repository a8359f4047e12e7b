import { describe, expect, it } from 'vitest';
import { steadySeconds } from '../../src/measure/steady-seconds.js';

describe('step window', () => {
  it('measures the steady window in seconds, never 0', () => {
    const w = {
      rampStart: 0,
      rampEnd: 2500,
      steadyStart: 3000,
      steadyEnd: 13_000,
      drainEnd: 14_000,
    };
    expect(steadySeconds(w)).toBe(10);
    expect(steadySeconds({ ...w, steadyEnd: 3000 })).toBe(0.001);
  });
});
