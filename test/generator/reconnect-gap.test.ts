import { describe, expect, it } from 'vitest';
import { mergeReconnectGaps, ReconnectGap } from '../../src/generator/reconnect-gap.js';

describe('ReconnectGap', () => {
  it('times each drop to its reconnect, and the gap from the first drop to the last rejoin', () => {
    const g = new ReconnectGap();
    g.dropped(1, 1_000);
    g.dropped(2, 1_050);
    g.rejoined(1, 2_500);
    g.rejoined(3, 2_600); // never dropped: not a reconnect of a drop
    expect(g.summary()).toEqual({
      dropped: 2,
      reconnected: 1,
      longestDownMs: 1_500,
      firstDropMs: 1_000,
      lastRejoinMs: 2_500,
    });
    g.rejoined(2, 3_050);
    expect(g.summary()).toMatchObject({
      reconnected: 2,
      longestDownMs: 2_000,
      lastRejoinMs: 3_050,
    });
  });

  it('merges processes: counts summed, the earliest drop, the latest rejoin, the longest down', () => {
    const none = { dropped: 0, reconnected: 0, longestDownMs: 0, firstDropMs: 0, lastRejoinMs: 0 };
    const a = {
      dropped: 3,
      reconnected: 3,
      longestDownMs: 900,
      firstDropMs: 2_000,
      lastRejoinMs: 2_900,
    };
    const b = {
      dropped: 2,
      reconnected: 1,
      longestDownMs: 1_200,
      firstDropMs: 1_900,
      lastRejoinMs: 3_100,
    };
    expect(mergeReconnectGaps([none, a, b])).toEqual({
      dropped: 5,
      reconnected: 4,
      longestDownMs: 1_200,
      firstDropMs: 1_900,
      lastRejoinMs: 3_100,
    });
  });
});
