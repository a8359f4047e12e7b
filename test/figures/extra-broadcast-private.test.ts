import { describe, expect, it } from 'vitest';
import { broadcastPrivateProfile as profile } from '../support/scenario-profiles.js';
import { planBroadcastPrivate } from '../../src/scenarios/broadcast-private.js';
import { fakeCollected, fakeContext, histogramOf } from '../support/step-context.js';
import { broadcastPrivateExtra } from '../../src/figures/extra-broadcast-private.js';

describe('broadcast-private extra', () => {
  it('reports the topology, RLS refusals of joins and the join round trip', () => {
    const p = profile([
      { connections: 8, rooms: 2, members: 4, room_send_rate: 5, duration: '2s' },
    ]);
    const plan = planBroadcastPrivate(p, 0);
    const collected = [
      fakeCollected({
        errors: {
          'join refused: Unauthorized: You do not have permissions to read from this Channel topic: room-1': 2,
          'join timeout: no reply within 10000 ms': 1,
        },
        joinReplyLatencyHistogram: histogramOf([2, 2, 3]),
      }),
      fakeCollected(
        {
          errors: {
            'join refused: Unauthorized: You do not have permissions to read from this Channel topic: room-0': 1,
          },
          joinReplyLatencyHistogram: histogramOf([4]),
        },
        1,
      ),
    ];
    const e = broadcastPrivateExtra(fakeContext({ profile: p, plan, collected }));
    expect(e).toMatchObject({
      rooms: 2,
      members_per_room: 4,
      room_send_rate_per_s: 5,
      auth_denied: 3,
      auth_check_ms: null,
    });
    // Merged over both processes: 2, 2, 3, 4 ms.
    const reply = e.join_reply_ms as { p50: number; p99: number };
    expect(reply.p50).toBeCloseTo(2, 1);
    expect(reply.p99).toBeCloseTo(4, 1);
  });
});
