import { describe, expect, it } from 'vitest';
import { stepRates } from '../../../src/run/figures/rates.js';
import type { SecondRecord } from '../../../src/run/timeline.js';

const sec = (delivered: number, bytes: number, delivered60 = delivered, acked = 0) =>
  ({ point: { delivered_per_s: delivered, delivered_per_s_60s: delivered60, acked_per_s: acked }, workers: [{ bytes }] }) as unknown as SecondRecord;
const w = { rampStart: 0, rampEnd: 2000, steadyStart: 3000, steadyEnd: 13_000, drainEnd: 15_000 };

describe('step rates', () => {
  it('broadcast deliveries/s is the mean of the steady seconds; sends over the window; join rates as measured', () => {
    const r = stepRates({
      figures: { sent: 1000, received: 9999 },
      primaryKind: 'broadcast',
      window: w,
      steadySeconds: [sec(900, 1048576), sec(1100, 3 * 1048576)],
      stepSeconds: [sec(10, 0, 5), sec(900, 0, 700)],
      joinsPerS: 25,
      rejoinsPerS: null,
      ackRequested: false,
    });
    expect(r).toEqual({ sent_per_s: 100, acked_per_s: null, delivered_per_s: 1000, joins_per_s: 25, rejoins_per_s: null, delivered_per_s_60s_max: 700, egress_mib_per_s: 2 });
  });

  it('other kinds divide received by the window; no joins, no seconds: nulls', () => {
    const r = stepRates({ figures: { sent: 0, received: 55 }, primaryKind: 'presence', window: w, steadySeconds: [], stepSeconds: [], joinsPerS: null, rejoinsPerS: 2, ackRequested: true });
    expect(r).toEqual({ sent_per_s: 0, acked_per_s: null, delivered_per_s: 5.5, joins_per_s: null, rejoins_per_s: 2, delivered_per_s_60s_max: null, egress_mib_per_s: null });
  });
});
