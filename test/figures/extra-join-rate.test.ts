import { describe, expect, it } from 'vitest';
import { joinRateProfile as profile } from '../support/scenario-profiles.js';
import { planJoinRate } from '../../src/scenarios/join-rate.js';
import { fakeCollected, fakeContext, fakeSecond, histogramOf } from '../support/step-context.js';

const POOL = 'IncreaseConnectionPool: Please increase your connection pool size';
import {
  checkTimeMs,
  declaredDbPool,
  joinSeconds,
  recoveryAfterRejection,
  rejectionsByReason,
  joinRateExtra,
} from '../../src/figures/extra-join-rate.js';

describe('join-rate figures', () => {
  it("keeps the server's reason verbatim and counts refused upgrades as rejections too", () => {
    const errors = new Map([
      [`join refused: ${POOL}`, 7],
      ['upgrade refused: HTTP 429 {"error":"Too many joins per second"}', 2],
      ['join timeout: no reply within 10000 ms', 3],
      ['phx_close: channel closed by server', 1],
    ]);
    expect(rejectionsByReason(errors)).toEqual({
      [POOL]: 7,
      'upgrade refused: HTTP 429 {"error":"Too many joins per second"}': 2,
    });
  });

  it('measures recovery from the first rejection to the first second with joins and no rejection', () => {
    const s = (t: number, joins: number, rejections: number) => ({ t, joins, rejections });
    expect(recoveryAfterRejection([s(1, 5, 0), s(2, 5, 0)])).toEqual({
      seconds: null,
      recovered: null,
    });
    // Second 12 has no rejection but no join either: the server was not shown to accept yet.
    expect(
      recoveryAfterRejection([s(10, 10, 0), s(11, 3, 4), s(12, 0, 0), s(13, 0, 6), s(41, 9, 0)]),
    ).toEqual({ seconds: 30, recovered: true });
    expect(recoveryAfterRejection([s(10, 10, 2), s(11, 3, 4), s(12, 1, 1)])).toEqual({
      seconds: null,
      recovered: false,
    });
  });

  it("reads rejections per second from every worker's error reasons", () => {
    const secs = joinSeconds([
      fakeSecond(100, 4),
      fakeSecond(101, 2, {
        [`join refused: ${POOL}`]: 3,
        'join timeout: no reply within 10000 ms': 1,
      }),
    ]);
    expect(secs).toEqual([
      { t: 100, joins: 4, rejections: 0 },
      { t: 101, joins: 2, rejections: 3 },
    ]);
  });

  it("takes db_pool as declared, from the built-in server's config, or not at all", () => {
    expect(declaredDbPool(profile({ private: { db_pool: 10 } }), false)).toBe(10);
    expect(declaredDbPool(profile(), false)).toBeNull();
    expect(declaredDbPool(profile(), true)).toBe(1);
    expect(declaredDbPool(profile({ target: { server: { config: { db_pool: 3 } } } }), true)).toBe(
      3,
    );
    expect(
      declaredDbPool(
        profile({
          target: { server: { config: { db_pool: 3, tenants: [{ id: 'a', db_pool: 5 }] } } },
        }),
        true,
      ),
    ).toBe(5);
  });

  it('takes the check time from join replies only where they show no queue', () => {
    expect(checkTimeMs({ p10: 100, p50: 101 }, 0)).toBe(101);
    // Fast checks jitter by a few ms; a slow first check does not move the median.
    expect(checkTimeMs({ p10: 3, p50: 8.7 }, 0)).toBe(8.7);
    // Above the ceiling the first joins are served at check time and the rest wait.
    expect(checkTimeMs({ p10: 100, p50: 900 }, 0)).toBeNull();
    expect(checkTimeMs({ p10: 100, p50: 101 }, 1)).toBeNull();
    expect(checkTimeMs(null, 0)).toBeNull();
  });

  it('accounts for every attempt: succeeded + rejected + other + pending', () => {
    const p = profile({
      load: {
        reconnect: { enabled: true },
        steps: [{ connections: 20, join_rate: 20, duration: 1 }],
      },
    });
    const plan = planJoinRate(p, 0);
    const collected = [
      fakeCollected({
        connections: { scheduledJoins: 10, joined: 6, failed: 6, reconnects: 3 },
        errors: { [`join refused: ${POOL}`]: 5, 'join timeout: no reply within 10000 ms': 1 },
        joinReplyLatencyHistogram: histogramOf([100, 101, 102, 5000, 5100, 5200]),
      }),
      fakeCollected(
        {
          connections: { scheduledJoins: 10, joined: 9, failed: 2, reconnects: 2 },
          errors: { [`join refused: ${POOL}`]: 2 },
          joinReplyLatencyHistogram: histogramOf([100, 100, 100]),
        },
        1,
      ),
    ];
    const stepSeconds = [
      fakeSecond(1, 10),
      fakeSecond(2, 4, { [`join refused: ${POOL}`]: 4 }),
      fakeSecond(3, 0, { [`join refused: ${POOL}`]: 3 }),
      fakeSecond(4, 1),
    ];
    const e = joinRateExtra(fakeContext({ profile: p, plan, collected, stepSeconds }));
    expect(e).toMatchObject({
      join_attempts: 25,
      join_succeeded: 15,
      join_rejected: 7,
      join_failed_other: 1,
      join_pending_at_end: 2,
      rejections_by_reason: { [POOL]: 7 },
      first_rejection_to_recovery_s: 2,
      recovered: true,
      db_pool: 1,
      // Joins failed in this step: the replies are queue time, not check time.
      auth_check_ms_p50: null,
      predicted_ceiling_per_s: null,
      measured_ceiling_per_s: 10,
      reconnects: 5,
    });
  });

  it('predicts the ceiling db_pool ÷ check time from an uncontended step', () => {
    const p = profile({
      private: { db_pool: 2 },
      load: { steps: [{ connections: 20, join_rate: 5, duration: 1 }] },
    });
    const collected = [
      fakeCollected({
        connections: { scheduledJoins: 20, joined: 20 },
        joinReplyLatencyHistogram: histogramOf(Array.from({ length: 20 }, () => 100)),
      }),
    ];
    const e = joinRateExtra(
      fakeContext({
        profile: p,
        plan: planJoinRate(p, 0),
        collected,
        stepSeconds: [fakeSecond(1, 5), fakeSecond(2, 5)],
        builtin: false,
      }),
    );
    expect(e.db_pool).toBe(2);
    expect(e.auth_check_ms_p50 as number).toBeCloseTo(100, 0);
    expect(e.predicted_ceiling_per_s as number).toBeCloseTo(20, 0);
    expect(e).toMatchObject({
      join_rejected: 0,
      first_rejection_to_recovery_s: null,
      recovered: null,
      reconnects: null,
      measured_ceiling_per_s: 5,
    });
  });
});
