import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  jwtExpiryMs,
  refreshAtMs,
  TokenRefreshSchedule,
} from '../../src/generator/token-refresh.js';

describe('token renewal schedule', () => {
  it('renews a token when half its lifetime is left', () => {
    expect(refreshAtMs(100_000, 60_000)).toBe(70_000);
  });

  it('gives the channels due, each once, at most a batch at a time', () => {
    const s = new TokenRefreshSchedule<string>(10_000);
    s.track('a', 20_000); // due 15,000
    s.track('b', 16_000); // due 11,000
    s.track('c', 30_000); // due 25,000
    expect(s.takeDue(10_999, 10)).toEqual([]);
    expect(s.takeDue(15_000, 1)).toEqual(['a']);
    expect(s.takeDue(15_000, 10)).toEqual(['b']);
    expect(s.takeDue(15_000, 10)).toEqual([]);
    expect(s.size).toBe(1);
    s.untrack('c');
    expect(s.takeDue(99_000, 10)).toEqual([]);
    s.retryAt('a', 16_000);
    expect(s.takeDue(16_000, 10)).toEqual(['a']);
  });

  it('finds a channel tracked after a call that found none due, and the rest of a batch cut short', () => {
    const s = new TokenRefreshSchedule<string>(10_000);
    s.track('late', 100_000); // due 95,000
    expect(s.takeDue(20_000, 10)).toEqual([]);
    s.track('early', 25_000); // due 20,000: earlier than anything seen by the last call
    expect(s.takeDue(20_000, 10)).toEqual(['early']);
    s.retryAt('x', 30_000);
    s.retryAt('y', 30_000);
    s.retryAt('z', 30_000);
    expect(s.takeDue(30_000, 2)).toEqual(['x', 'y']);
    expect(s.takeDue(30_000, 2)).toEqual(['z']);
    expect(s.takeDue(94_999, 10)).toEqual([]);
    expect(s.takeDue(95_000, 10)).toEqual(['late']);
    expect(s.size).toBe(0);
  });

  it('reads exp from a JWT without verifying it; null for anything else', async () => {
    const token = await new SignJWT({ role: 'anon' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(1_900_000_000)
      .sign(new TextEncoder().encode('k'.repeat(32)));
    expect(jwtExpiryMs(token)).toBe(1_900_000_000_000);
    expect(jwtExpiryMs('sb_publishable_abc')).toBeNull();
    expect(jwtExpiryMs('a.not-base64-json.c')).toBeNull();
    const noExp = await new SignJWT({ role: 'anon' })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode('k'.repeat(32)));
    expect(jwtExpiryMs(noExp)).toBeNull();
  });
});
