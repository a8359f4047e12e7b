import { describe, expect, it } from 'vitest';
import { closestKey, editDistance } from '../../src/profile/suggest.js';

describe('editDistance', () => {
  it.each([
    ['', '', 0],
    ['abc', '', 3],
    ['', 'abc', 3],
    ['kitten', 'sitting', 3],
    ['conections', 'connections', 1],
    ['stesp', 'steps', 1],
    ['vsn', 'vns', 1],
    ['abc', 'cba', 2],
    ['flaw', 'lawn', 2],
  ])('%j → %j is %d', (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
    expect(editDistance(b, a)).toBe(d);
  });
});

describe('closestKey', () => {
  const keys = ['connections', 'send_rate', 'duration', 'join_rate', 'payload_bytes', 'label'];
  it.each([
    ['conections', 'connections'],
    ['sendrate', 'send_rate'],
    ['Send-Rate', 'send_rate'],
    ['duraton', 'duration'],
    ['jion_rate', 'join_rate'],
    ['lable', 'label'],
    ['payload', 'payload_bytes'],
  ])('suggests %j for %j', (typo, key) => {
    expect(closestKey(typo, keys)).toBe(key);
  });

  it.each(['foo', 'rate', 'x', 'pay', 'bytes'])('suggests nothing for %j', (typo) => {
    expect(closestKey(typo, keys)).toBeNull();
  });
});
