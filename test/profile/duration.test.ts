import { describe, expect, it } from 'vitest';
import { formatDurationMs, parseDurationMs } from '../../src/profile/duration.js';

describe('parseDurationMs', () => {
  it.each([
    ['500ms', 500],
    ['20s', 20_000],
    ['1.5s', 1_500],
    ['2m', 120_000],
    ['2h', 7_200_000],
    ['1m30s', 90_000],
    ['1h0m5s', 3_605_000],
    [' 20s ', 20_000],
    ['20', 20_000],
    ['0.25', 250],
    ['0', 0],
  ])('reads %j as %d ms', (text, ms) => {
    expect(parseDurationMs(text)).toBe(ms);
  });

  it('reads a number as seconds', () => {
    expect(parseDurationMs(20)).toBe(20_000);
    expect(parseDurationMs(0.5)).toBe(500);
    expect(parseDurationMs(0)).toBe(0);
  });

  it.each(['', ' ', 'fast', '20 s', '20sec', 's', '-5s', '1.5.5s', '5d', '20s!', '1e3'])(
    'rejects %j',
    (text) => {
      expect(parseDurationMs(text)).toBeNull();
    },
  );

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])('rejects the number %d', (n) => {
    expect(parseDurationMs(n)).toBeNull();
  });
});

describe('formatDurationMs', () => {
  it.each([
    [0, '0ms'],
    [5, '5ms'],
    [999, '999ms'],
    [1_000, '1s'],
    [1_500, '1.5s'],
    [90_000, '90s'],
    [120_000, '2m'],
    [3_600_000, '1h'],
    [5_400_000, '90m'],
  ])('writes %d ms as %j', (ms, text) => {
    expect(formatDurationMs(ms)).toBe(text);
  });

  it('round-trips through parseDurationMs', () => {
    for (const ms of [0, 1, 250, 1_000, 1_500, 25_000, 60_000, 90_000, 3_600_000, 5_400_000]) {
      expect(parseDurationMs(formatDurationMs(ms))).toBe(ms);
    }
  });
});
