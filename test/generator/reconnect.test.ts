import { describe, expect, it } from 'vitest';
import { reconnectDelayMs, reconnectGiveUpMs } from '../../src/generator/reconnect.js';

const policy = {
  initialBackoffMs: 1000,
  maxBackoffMs: 30_000,
  multiplier: 2,
  jitter: 0.5,
  maxAttempts: 4,
};

describe('reconnectDelayMs', () => {
  it('doubles from the initial backoff, capped at the maximum', () => {
    const noJitter = { ...policy, jitter: 0, maxAttempts: 10 };
    expect([0, 1, 2, 3, 4, 5, 6].map((a) => reconnectDelayMs(noJitter, a, 0.7))).toEqual([
      1000, 2000, 4000, 8000, 16_000, 30_000, 30_000,
    ]);
  });
  it('spreads each wait over backoff × [1 − jitter, 1 + jitter)', () => {
    expect(reconnectDelayMs(policy, 1, 0)).toBe(1000);
    expect(reconnectDelayMs(policy, 1, 0.5)).toBe(2000);
    expect(reconnectDelayMs(policy, 1, 0.999)).toBeCloseTo(2998, 0);
  });
  it('gives up after maxAttempts', () => {
    expect(reconnectDelayMs(policy, 3, 0.5)).toBe(8000);
    expect(reconnectDelayMs(policy, 4, 0.5)).toBeNull();
  });
});

describe('reconnectGiveUpMs', () => {
  it('every backoff at its longest plus each attempt’s connect and join timeouts', () => {
    // 1, 2, 4, 8 s × 1.5, plus 4 × 2 × 500 ms.
    expect(reconnectGiveUpMs(policy, 500)).toBe(22_500 + 4_000);
    expect(reconnectGiveUpMs({ ...policy, maxAttempts: 0 }, 500)).toBe(0);
  });
});
