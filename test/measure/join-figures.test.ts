import { describe, expect, it } from 'vitest';
import {
  joinFigures,
  joinOfferedRatio,
  joinSuccess,
  joinsPerS,
  rejoinsPerS,
} from '../../src/measure/join-figures.js';

const ramp = (
  joined: number,
  first: number | null,
  last: number | null,
  behind = 0,
  rejoins = 0,
) => ({
  joins: {
    ramp: { joined, firstReplyMs: first, lastReplyMs: last, behindSchedule: behind },
    rejoins,
  },
});

describe('joinFigures', () => {
  it('merges processes: counts summed, first reply the earliest, last the latest', () => {
    expect(
      joinFigures([
        ramp(10, 1_000, 5_000, 1, 2),
        ramp(5, 900, 4_000, 0, 1),
        ramp(0, null, null),
        {},
      ]),
    ).toEqual({
      rampJoined: 15,
      firstReplyMs: 900,
      lastReplyMs: 5_000,
      behindSchedule: 1,
      rejoins: 3,
    });
  });
});

describe('joinsPerS', () => {
  it('is the reply intervals per second: a server keeping up answers at the offered rate, whatever its latency', () => {
    // 30 joins offered at 5/s, each answered 100 ms after it was due: replies 0.1 s … 5.9 s.
    expect(joinsPerS({ rampJoined: 30, firstReplyMs: 100, lastReplyMs: 5_900 })).toBe(5);
  });
  it('a server serving 10/s under 20/s offered answers at 10/s', () => {
    // 60 joins due in 3 s; the queue answers one every 100 ms: replies 0.1 s … 6.0 s.
    expect(joinsPerS({ rampJoined: 60, firstReplyMs: 100, lastReplyMs: 6_000 })).toBe(10);
  });
  it('is null below two replies or over no time', () => {
    expect(joinsPerS({ rampJoined: 1, firstReplyMs: 5, lastReplyMs: 5 })).toBeNull();
    expect(joinsPerS({ rampJoined: 3, firstReplyMs: 5, lastReplyMs: 5 })).toBeNull();
    expect(joinsPerS({ rampJoined: 0, firstReplyMs: null, lastReplyMs: null })).toBeNull();
  });
});

describe('rejoinsPerS', () => {
  it('counts reconnects that joined over the whole step', () => {
    expect(rejoinsPerS(20, 10_000, true)).toBe(2);
    expect(rejoinsPerS(0, 10_000, true)).toBe(0);
    expect(rejoinsPerS(0, 10_000, false)).toBeNull();
  });
});

describe('joinOfferedRatio and joinSuccess', () => {
  it('offered: joins opened on schedule over joins scheduled', () => {
    expect(joinOfferedRatio(200, 10)).toBe(0.95);
    expect(joinOfferedRatio(0, 0)).toBeNull();
  });
  it('success: the seed calls 15,998 of 16,000 joined a success at 0.9995', () => {
    expect(joinSuccess(16_000, 2)).toBe(0.999875);
    expect(joinSuccess(10, 12)).toBe(0);
    expect(joinSuccess(0, 0)).toBeNull();
  });
});
