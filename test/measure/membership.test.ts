import { describe, expect, it } from 'vitest';
import { Membership } from '../../src/measure/membership.js';

describe('Membership.at', () => {
  it('a member joined exactly at t counts; one joined just after does not', () => {
    const m = new Membership([{ joinedAtMs: 100, leftAtMs: Infinity }]);
    expect(m.at(99.999)).toBe(0);
    expect(m.at(100)).toBe(1);
    expect(m.at(1e15)).toBe(1);
  });

  it('a member that left exactly at t is gone at t', () => {
    const m = new Membership([{ joinedAtMs: 100, leftAtMs: 200 }]);
    expect(m.at(199.999)).toBe(1);
    expect(m.at(200)).toBe(0);
    expect(m.at(300)).toBe(0);
  });

  it('counts overlapping intervals given in any order', () => {
    const m = new Membership([
      { joinedAtMs: 300, leftAtMs: Infinity },
      { joinedAtMs: 100, leftAtMs: 250 },
      { joinedAtMs: 20, leftAtMs: Infinity },
      { joinedAtMs: 200, leftAtMs: 1000 },
      // Values that sort differently as strings than as numbers.
      { joinedAtMs: 1000, leftAtMs: 9000 },
    ]);
    expect(m.size).toBe(5);
    const at = (t: number) => m.at(t);
    expect([0, 20, 99, 100, 200, 249, 250, 300, 999, 1000, 8999, 9000].map(at)).toEqual([
      0, 1, 1, 2, 3, 3, 2, 3, 3, 3, 3, 2,
    ]);
  });

  it('empty membership is zero everywhere', () => {
    const m = new Membership([]);
    expect(m.at(0)).toBe(0);
    expect(m.at(Infinity)).toBe(0);
    expect(m.size).toBe(0);
  });
});

describe('Membership.droppedIn', () => {
  it('counts members dropped (not closed by rtcap) in (from, to]', () => {
    const m = new Membership([
      { joinedAtMs: 0, leftAtMs: 500, dropped: true },
      { joinedAtMs: 0, leftAtMs: 600 }, // closed by rtcap: no drop
      { joinedAtMs: 0, leftAtMs: 900, dropped: true },
      { joinedAtMs: 0, leftAtMs: Infinity },
    ]);
    expect(m.droppedIn(0, 499)).toBe(0);
    expect(m.droppedIn(0, 500)).toBe(1);
    expect(m.droppedIn(500, 1000)).toBe(1);
    expect(m.droppedIn(0, 1000)).toBe(2);
  });

  it('leaves out the drops of one connection when asked (a sender and its own message)', () => {
    const m = new Membership([
      { joinedAtMs: 0, leftAtMs: 500, dropped: true, conn: 7 },
      { joinedAtMs: 600, leftAtMs: 800, dropped: true, conn: 7 },
      { joinedAtMs: 0, leftAtMs: 900, dropped: true, conn: 3 },
    ]);
    expect(m.droppedIn(0, 1000)).toBe(3);
    expect(m.droppedIn(0, 1000, 7)).toBe(1);
    expect(m.droppedIn(600, 1000, 7)).toBe(1);
    expect(m.droppedIn(0, 1000, 3)).toBe(2);
    expect(m.droppedIn(0, 1000, 5)).toBe(3);
  });
});
