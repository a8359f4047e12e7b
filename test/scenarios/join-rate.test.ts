import { describe, expect, it } from 'vitest';
import { joinRateProfile as profile } from '../support/scenario-profiles.js';
import { planJoinRate } from '../../src/scenarios/join-rate.js';
import { kindStream } from '../../src/scenarios/types.js';

describe('join-rate plan', () => {
  it("joins each step's fresh connections privately to the step's own topic at the step's rate", () => {
    const p = profile();
    const [a, b] = [planJoinRate(p, 0), planJoinRate(p, 1)];
    expect(a.topicOf(0)).toBe('realtime:slow-s1');
    expect(b.topicOf(199)).toBe('realtime:slow-s2');
    expect(b.joinRatePerS).toBe(20);
    expect(b.connections).toBe(200);
    expect(a.joinConfigOf(3)).toEqual({ private: true });
    expect(a.userClaimsOf!(3)).toEqual({ role: 'authenticated', sub: 'user-3' });
    // A topology of its own per step: the runner closes the previous step's connections.
    expect(a.topology).not.toBe(b.topology);
    expect(a.broadcasts).toBeNull();
    expect(a.label).toBe('5/s private joins × 50');
    expect(b.params).toMatchObject({
      connections: 200,
      join_rate: 20,
      send_rate: 0,
      receivers: 199,
    });
  });

  it("with send_rate, connection 0 broadcasts on the step's topic", () => {
    const p = profile({}, [{ connections: 10, join_rate: 5, send_rate: 2, duration: '3s' }]);
    const plan = planJoinRate(p, 0);
    expect(plan.broadcasts!.count).toBe(6);
    expect(plan.broadcasts!.senderOf(5)).toEqual({
      conn: 0,
      stream: kindStream('broadcast', 0),
      seq: 5,
    });
    expect(plan.streamInfo(kindStream('broadcast', 0))).toEqual({
      key: 'realtime:slow-s1',
      excludeSender: true,
      sender: 0,
    });
  });

  it('carries the reconnect policy of load.reconnect', () => {
    const p = profile({
      load: {
        reconnect: {
          enabled: true,
          initial_backoff: '500ms',
          max_backoff: '4s',
          jitter: 0.3,
          max_attempts: 6,
        },
        steps: [{ connections: 5, duration: 1 }],
      },
    });
    expect(planJoinRate(p, 0).reconnect).toEqual({
      initialBackoffMs: 500,
      maxBackoffMs: 4000,
      multiplier: 2,
      jitter: 0.3,
      maxAttempts: 6,
    });
    expect(planJoinRate(profile(), 0).reconnect).toBeNull();
  });
});
