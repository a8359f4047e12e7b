import { describe, expect, it } from 'vitest';
import {
  deliveredPerS,
  deliveredPerS60sMax,
  drainBacklog,
  lastReceipts,
  sentPerS,
  stepRates,
} from '../../src/figures/rates.js';
import type { SecondRecord } from '../../src/figures/timeline.js';
import { kindStream } from '../../src/scenarios/types.js';

/** One second: deliveries by kind [broadcast, presence, changes] in one process. */
const sec = (t: number, byKind: number[], bytes = 0, delivered60 = 0) =>
  ({
    point: {
      t,
      delivered_per_s: byKind.reduce((a, b) => a + b, 0),
      delivered_per_s_60s: delivered60,
      acked_per_s: 0,
    },
    workers: [{ received: byKind.reduce((a, b) => a + b, 0), receivedByKind: byKind, bytes }],
  }) as unknown as SecondRecord;
const w = { rampStart: 0, rampEnd: 2000, steadyStart: 3000, steadyEnd: 13_000, drainEnd: 15_000 };
const send = (stream: number, actual: number[]) => ({
  stream,
  sched: Float64Array.from(actual),
  actual: Float64Array.from(actual),
});

describe('rates: counted by the time they happened, per second of the steady window', () => {
  it('deliveries of a kind: mean of its receive-time counts over the whole steady seconds', () => {
    const seconds = [sec(3, [900, 10, 0]), sec(4, [1100, 30, 0])];
    expect(deliveredPerS('broadcast', seconds, { received: 0, steadyS: 10 })).toBe(1000);
    expect(deliveredPerS('presence', seconds, { received: 0, steadyS: 10 })).toBe(20);
    // No whole second in the window: the kind's deliveries over the window's length.
    expect(deliveredPerS('presence', [], { received: 55, steadyS: 10 })).toBe(5.5);
  });

  it('sends of a kind made inside the window, per second of it; failed and drain sends are not counted', () => {
    const B = kindStream('broadcast', 0);
    const C = kindStream('changes', 0);
    const sends = [send(B, [3000, 5000, 13_000, 13_500, NaN]), send(C, [4000, 14_000])];
    expect(sentPerS(sends, 'broadcast', w)).toBe(0.3);
    expect(sentPerS(sends, 'changes', w)).toBe(0.1);
  });

  it('the drain: last receipt after the window as backlog, and the deliveries after it apart', () => {
    const step = [sec(12, [100, 0, 0]), sec(13, [40, 0, 0]), sec(14, [2, 0, 0])];
    expect(drainBacklog([12_500, 14_250], w, step)).toEqual({
      backlog_ms: 1250,
      receipts_after_window: 42,
    });
    expect(drainBacklog([12_500], w, step).backlog_ms).toBe(0);
    expect(drainBacklog([], w, []).backlog_ms).toBeNull();
    const collected = [
      {
        receipts: {
          streams: [
            { last: Float64Array.from([5, 9, -Infinity]) },
            { last: Float64Array.from([-Infinity]) },
          ],
        },
      },
    ];
    expect(lastReceipts(collected)).toEqual([9]);
  });

  it('per kind, the highest 60 s sliding mean of the step seconds; null when none carries it', () => {
    const withKinds = (t: number, byKind60: number[]) =>
      ({ ...sec(t, [0, 0, 0]), deliveredPerS60sByKind: byKind60 }) as SecondRecord;
    const seconds = [withKinds(1, [10, 4, 0]), withKinds(2, [12, 3, 0]), withKinds(3, [11, 5, 0])];
    expect(deliveredPerS60sMax('broadcast', seconds)).toBe(12);
    expect(deliveredPerS60sMax('presence', seconds)).toBe(5);
    expect(deliveredPerS60sMax('changes', seconds)).toBe(0);
    expect(deliveredPerS60sMax('broadcast', [sec(1, [1, 0, 0])])).toBeNull();
  });

  it('assembles the step rates', () => {
    const r = stepRates({
      figures: { received: 9999 },
      sends: [send(kindStream('broadcast', 0), [3000, 4000])],
      primaryKind: 'broadcast',
      window: w,
      steadySeconds: [sec(3, [900, 0, 0], 1048576), sec(4, [1100, 0, 0], 3 * 1048576)],
      stepSeconds: [sec(2, [10, 0, 0], 0, 5), sec(3, [900, 0, 0], 0, 700)],
      joinsPerS: 25,
      rejoinsPerS: null,
      ackRequested: false,
    });
    expect(r).toEqual({
      sent_per_s: 0.2,
      acked_per_s: null,
      delivered_per_s: 1000,
      joins_per_s: 25,
      rejoins_per_s: null,
      delivered_per_s_60s_max: 700,
      egress_mib_per_s: 2,
    });
  });
});
