import { describe, expect, it } from 'vitest';
import { runOpenLoop } from '../../src/generator/pacer.js';
import { FakePacer } from '../support/fake-pacer.js';

describe('runOpenLoop', () => {
  it('fires every event at its due time and ends once with all fired', () => {
    const p = new FakePacer(1000);
    const fired: Array<[number, number, number]> = [];
    const ends: number[] = [];
    runOpenLoop(p, {
      total: 4,
      dueOf: (k) => 1000 + k * 100,
      fire: (k, due, now) => fired.push([k, due, now]),
      cancelled: () => false,
      end: (n) => ends.push(n),
    });
    p.run();
    expect(fired).toEqual([
      [0, 1000, 1000],
      [1, 1100, 1100],
      [2, 1200, 1200],
      [3, 1300, 1300],
    ]);
    expect(ends).toEqual([4]);
  });

  it('a loop that falls behind fires the late events at once, late, never skipping one', () => {
    const p = new FakePacer(0);
    const fired: Array<[number, number]> = [];
    runOpenLoop(p, {
      total: 3,
      dueOf: (k) => k * 10,
      fire: (k, due, now) => {
        fired.push([k, now - due]);
        if (k === 0) p.t += 25; // the process was busy for 25 ms
      },
      cancelled: () => false,
      end: () => undefined,
    });
    p.run();
    expect(fired).toEqual([
      [0, 0],
      [1, 15],
      [2, 5],
    ]);
  });

  it('gives up past giveUpAtMs and reports how many fired', () => {
    const p = new FakePacer(0);
    const ends: number[] = [];
    let fired = 0;
    runOpenLoop(p, {
      total: 10,
      dueOf: (k) => k * 10,
      fire: () => {
        fired++;
        p.t += 30;
      },
      cancelled: () => false,
      giveUpAtMs: 50,
      end: (n) => ends.push(n),
    });
    p.run();
    expect(ends).toEqual([fired]);
    expect(fired).toBeLessThan(10);
  });

  it('a catch-up that runs past giveUpAtMs stops there, not after everything due at its start', () => {
    const p = new FakePacer(0);
    const ends: number[] = [];
    let fired = 0;
    runOpenLoop(p, {
      total: 100,
      dueOf: () => 0,
      fire: () => {
        fired++;
        p.t += 10;
      },
      cancelled: () => false,
      giveUpAtMs: 50,
      end: (n) => ends.push(n),
    });
    p.run();
    expect(fired).toBe(6);
    expect(ends).toEqual([6]);
  });

  it('a cancelled loop stops without ending', () => {
    const p = new FakePacer(0);
    let cancelled = false;
    const ends: number[] = [];
    let fired = 0;
    runOpenLoop(p, {
      total: 5,
      dueOf: (k) => k * 10,
      fire: () => {
        if (++fired === 2) cancelled = true;
      },
      cancelled: () => cancelled,
      end: (n) => ends.push(n),
    });
    p.run();
    expect(fired).toBe(2);
    expect(ends).toEqual([]);
    expect(p.pending).toBe(0);
  });
});
