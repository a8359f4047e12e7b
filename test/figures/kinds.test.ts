import { describe, expect, it } from 'vitest';
import { Membership } from '../../src/measure/membership.js';
import {
  createHistogram,
  encodeHistogram,
  percentilesOf,
  recordMs,
} from '../../src/measure/histogram.js';
import {
  deliveryRateOf,
  figuresByKind,
  kindSummary,
  latencyOriginOf,
  lostOverKinds,
  primaryOf,
  worstDeliveryRate,
} from '../../src/figures/kinds.js';
import { kindStream } from '../../src/scenarios/types.js';
import { fakeFigures } from '../support/step-context.js';

const B = kindStream('broadcast', 0);
const P = kindStream('presence', 0);
const C = kindStream('changes', 0);
const send = (stream: number, sched: number[]) => ({
  stream,
  sched: Float64Array.from(sched),
  actual: Float64Array.from(sched),
});
const receipt = (stream: number, counts: number[], at: number[]) => ({
  stream,
  count: Uint32Array.from(counts),
  first: Float64Array.from(at),
  last: Float64Array.from(at),
});
const twoMembers = () => ({
  membership: new Membership([
    { joinedAtMs: 0, leftAtMs: Infinity },
    { joinedAtMs: 0, leftAtMs: Infinity },
  ]),
  self: true,
});

function collectedWith(streams: ReturnType<typeof receipt>[], kindLatenciesMs: number[][] = []) {
  const kindHistograms = kindLatenciesMs.map((xs) => {
    const h = createHistogram();
    for (const x of xs) recordMs(h, x);
    return encodeHistogram(h);
  });
  return { receipts: { streams, kindHistograms } } as never;
}

describe('figures by traffic kind', () => {
  it('matches each kind sends with its receipts, over processes', () => {
    const kinds = figuresByKind({
      collected: [
        collectedWith(
          [receipt(B, [1, 1], [110, 220]), receipt(P, [2], [130])],
          [
            [10, 20],
            [30, 30],
          ],
        ),
        collectedWith([receipt(B, [1, 0], [105, 0])]),
      ],
      sends: [send(B, [100, 200]), send(P, [100])],
      primaryKind: 'broadcast',
      info: twoMembers,
    });
    expect(Object.keys(kinds)).toEqual(['broadcast', 'presence']);
    expect(kinds.broadcast!.figures).toMatchObject({ sent: 2, expected: 4, received: 3, lost: 1 });
    expect(kinds.presence!.figures).toMatchObject({ sent: 1, expected: 2, received: 2, lost: 0 });
    expect(kinds.broadcast!.deliveryHistogram.totalCount).toBe(2);
    expect(kinds.presence!.deliveryHistogram.totalCount).toBe(2);
    expect(worstDeliveryRate(kinds)).toBe(0.75);
    // No per-kind split in what the processes sent (older shards): zero, not a guess.
    expect(kindSummary(kinds.broadcast!)).toMatchObject({ reordered: 0, duplicates: 0 });
    expect(lostOverKinds(kinds)).toBe(1);
  });

  it('sums each kind reordered and duplicate receipts over processes', () => {
    const split = (reorderedByKind: number[], duplicatesByKind: number[]) =>
      ({
        receipts: { streams: [], kindHistograms: [], reorderedByKind, duplicatesByKind },
      }) as never;
    const kinds = figuresByKind({
      collected: [split([2, 0, 0], [1, 3, 0]), split([1, 0, 0], [0, 1, 0])],
      sends: [send(B, [100]), send(P, [100])],
      primaryKind: 'broadcast',
      info: twoMembers,
    });
    expect(kindSummary(kinds.broadcast!)).toMatchObject({ reordered: 3, duplicates: 1 });
    expect(kindSummary(kinds.presence!)).toMatchObject({ reordered: 0, duplicates: 4 });
  });

  it('keeps the primary kind even when it sent nothing; primaryOf is empty for a kind not there', () => {
    const kinds = figuresByKind({
      collected: [],
      sends: [],
      primaryKind: 'changes',
      info: twoMembers,
    });
    expect(Object.keys(kinds)).toEqual(['changes']);
    expect(primaryOf({}, 'presence').figures.sent).toBe(0);
    expect(worstDeliveryRate(kinds)).toBeNull();
  });

  it('Postgres Changes latency counts from the commit, every other kind from the scheduled send', () => {
    expect(latencyOriginOf('changes')).toBe('actual');
    expect(latencyOriginOf('broadcast')).toBe('scheduled');
    expect(latencyOriginOf('presence')).toBe('scheduled');
    // A row due at 100 that committed at 900 (rtcap's insert backlog), received at 910; a
    // broadcast due at 100 and sent at 900, received at 910.
    const late = (stream: number) => ({
      stream,
      sched: Float64Array.from([100]),
      actual: Float64Array.from([900]),
    });
    const kinds = figuresByKind({
      collected: [collectedWith([receipt(C, [1], [910]), receipt(B, [1], [910])])],
      sends: [late(C), late(B)],
      primaryKind: 'changes',
      info: twoMembers,
    });
    expect(percentilesOf(kinds.changes!.figures.firstLatency).max!).toBeLessThan(11);
    expect(percentilesOf(kinds.broadcast!.figures.firstLatency).max!).toBeGreaterThan(800);
  });

  it('delivery rate is received over expected, null when nothing was expected', () => {
    expect(deliveryRateOf({ expected: 4, received: 3 })).toBe(0.75);
    expect(deliveryRateOf({ expected: 0, received: 0 })).toBeNull();
  });

  it('summarises a kind for extra.kinds', () => {
    const s = kindSummary({
      figures: fakeFigures({ sent: 10, expected: 30, received: 29, lost: 1 }),
      deliveryHistogram: createHistogram(),
    });
    expect(s).toMatchObject({
      sent: 10,
      expected: 30,
      received: 29,
      lost: 1,
      delivery_rate: 0.966667,
    });
  });
});
