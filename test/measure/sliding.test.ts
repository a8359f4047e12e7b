import { describe, expect, it } from 'vitest';
import { SlidingMean } from '../../src/measure/sliding.js';

describe('SlidingMean', () => {
  it('is 0 before any value', () => {
    const s = new SlidingMean(3);
    expect(s.mean()).toBe(0);
    expect(s.filled).toBe(false);
  });

  it('averages the seconds seen until the window fills', () => {
    const s = new SlidingMean(3);
    expect(s.push(3)).toBe(3);
    expect(s.push(6)).toBe(4.5);
    expect(s.filled).toBe(false);
    expect(s.push(9)).toBe(6);
    expect(s.filled).toBe(true);
  });

  it('then drops the oldest second', () => {
    const s = new SlidingMean(3);
    for (const v of [3, 6, 9]) s.push(v);
    expect(s.push(0)).toBe(5); // 6, 9, 0
    expect(s.push(0)).toBe(3); // 9, 0, 0
    expect(s.push(0)).toBe(0);
    expect(s.filled).toBe(true);
  });

  it('defaults to a 60 s window', () => {
    const s = new SlidingMean();
    expect(s.windowSeconds).toBe(60);
    for (let i = 0; i < 60; i++) s.push(100);
    expect(s.mean()).toBe(100);
    for (let i = 0; i < 30; i++) s.push(0);
    expect(s.mean()).toBe(50);
  });

  it('stays exact over a long run of integer rates', () => {
    const s = new SlidingMean(60);
    for (let i = 0; i < 10_000; i++) s.push(i % 7);
    // The last 60 values of i % 7 for i = 9940..9999.
    let sum = 0;
    for (let i = 9940; i < 10_000; i++) sum += i % 7;
    expect(s.mean()).toBe(sum / 60);
  });
});
