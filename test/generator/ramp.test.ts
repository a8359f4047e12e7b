import { describe, expect, it } from 'vitest';
import { RampDriver, type RampStart } from '../../src/generator/ramp.js';
import { FakePacer } from '../support/fake-pacer.js';

function setup(opts: { workers?: number; index?: number; ratePerS?: number; to?: number } = {}) {
  const p = new FakePacer(0);
  const done: number[] = [];
  let waiting = 0;
  const ramp = new RampDriver(p, {
    currentStep: () => 0,
    waitingSubscriptions: () => waiting,
    rampDone: (s) => done.push(s),
  });
  const opened: Array<[number, number, number]> = [];
  const workers = opts.workers ?? 1;
  const start: RampStart = {
    step: 0,
    fromConn: 0,
    toConn: opts.to ?? 4,
    startMs: 1000,
    joinRatePerS: opts.ratePerS ?? 10,
    mine: (i) => i % workers === (opts.index ?? 0),
    open: (i, due, late) => {
      opened.push([i, due, late]);
      ramp.attemptOpened();
    },
    stopped: () => false,
  };
  return { p, ramp, done, opened, start, setWaiting: (n: number) => (waiting = n) };
}

describe('RampDriver', () => {
  it('opens its own connections on the join schedule of all of them', () => {
    const t = setup({ workers: 2, index: 1, to: 6 });
    expect(t.ramp.start(t.start)).toBe(3);
    t.p.run();
    // Connections 1, 3, 5 at 1000 + i × 100 ms (10 joins/s over every process's connections).
    expect(t.opened).toEqual([
      [1, 1100, 0],
      [3, 1300, 0],
      [5, 1500, 0],
    ]);
  });

  it('is done once every first attempt was answered, not before, and only once', () => {
    const t = setup();
    t.ramp.start(t.start);
    t.p.run();
    expect(t.opened).toHaveLength(4);
    for (let i = 0; i < 3; i++) {
      t.ramp.attemptAnswered();
      t.ramp.settle();
    }
    expect(t.done).toEqual([]);
    t.ramp.attemptAnswered();
    t.ramp.settle();
    t.ramp.settle();
    expect(t.done).toEqual([0]);
  });

  it('waits for Postgres Changes subscriptions to be confirmed', () => {
    const t = setup({ to: 1 });
    t.ramp.start(t.start);
    t.p.run();
    t.setWaiting(1);
    t.ramp.attemptAnswered();
    t.ramp.settle();
    expect(t.done).toEqual([]);
    t.setWaiting(0);
    t.ramp.settle();
    expect(t.done).toEqual([0]);
  });

  it('a process holding none of the connections is done at once', () => {
    const t = setup({ workers: 8, index: 7, to: 4 });
    expect(t.ramp.start(t.start)).toBe(0);
    expect(t.done).toEqual([0]);
    t.ramp.settle();
    expect(t.done).toEqual([0]);
  });

  it('reports how late each open was', () => {
    const t = setup({ to: 2 });
    t.start.open = (i, due, late) => {
      t.opened.push([i, due, late]);
      t.ramp.attemptOpened();
      t.p.t += 250; // opening took a quarter second
    };
    t.ramp.start(t.start);
    t.p.run();
    expect(t.opened).toEqual([
      [0, 1000, 0],
      [1, 1100, 150],
    ]);
  });
});
