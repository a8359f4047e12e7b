import { describe, expect, it } from 'vitest';
import { addCounts } from '../../src/util/counts.js';

describe('addCounts', () => {
  it('adds counts by name into the map, names in the order first seen', () => {
    const into = new Map([['b', 1]]);
    expect(addCounts(into, { a: 2, b: 3 })).toBe(into);
    addCounts(into, { '7': 1, a: 1 });
    expect([...into]).toEqual([
      ['b', 4],
      ['a', 3],
      ['7', 1],
    ]);
    expect(addCounts(new Map(), {}).size).toBe(0);
  });
});
