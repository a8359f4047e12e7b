import { describe, expect, it } from 'vitest';
import { ownershipOf, parseSegment } from '../../src/load/segment.js';

describe('segments', () => {
  it('parses i/N and refuses the rest in one line', () => {
    expect(parseSegment('2/3')).toEqual({ index: 2, count: 3 });
    expect(parseSegment('3/3')).toMatch(/i must be 0 … N−1/);
    expect(parseSegment('x')).toMatch(/give i\/N/);
  });

  it('3 segments × 2 processes own every connection exactly once, c mod 3 in segment c mod 3', () => {
    const owners = [0, 1, 2].flatMap((s) => [0, 1].map((w) => ({ s, ...ownershipOf({ index: s, count: 3 }, w, 2) })));
    for (let c = 0; c < 600; c++) {
      const mine = owners.filter((o) => c % o.owners === o.owner);
      expect(mine.length).toBe(1);
      expect(mine[0].s).toBe(c % 3);
    }
  });
});
