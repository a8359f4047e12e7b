import { describe, expect, it } from 'vitest';
import { planBroadcastPublic } from '../../src/scenarios/broadcast-public.js';
import { bytesLabel, planPayloadSize } from '../../src/scenarios/payload-size.js';
import { kindStream } from '../../src/scenarios/types.js';
import { profileFrom } from '../support/profiles.js';

const p = profileFrom({
  name: 'ps',
  scenario: 'payload-size',
  load: {
    steps: [64, 1024, 10_240, 102_400].map((payload_bytes) => ({
      connections: 100,
      send_rate: 5,
      duration: '4s',
      payload_bytes,
    })),
  },
});

describe('payload-size plan', () => {
  it('is public broadcast from one sender, one payload size per step, on the same connections', () => {
    const plans = [0, 1, 2, 3].map((i) => planPayloadSize(p, i));
    expect(plans.map((x) => x.payloadBytes)).toEqual([64, 1024, 10_240, 102_400]);
    expect(plans.map((x) => x.label)).toEqual([
      '64 B × 5/s to 99 receivers',
      '1 KB × 5/s to 99 receivers',
      '10 KB × 5/s to 99 receivers',
      '100 KB × 5/s to 99 receivers',
    ]);
    for (const [i, plan] of plans.entries()) {
      const pub = planBroadcastPublic(p, i);
      expect(plan.connections).toBe(100);
      expect(plan.topology).toBeUndefined();
      expect(plan.topicOf(42)).toBe('realtime:bench');
      expect(plan.broadcasts!.count).toBe(20);
      expect(plan.broadcasts!.senderOf(7)).toEqual({
        conn: 0,
        stream: kindStream('broadcast', 0),
        seq: 7,
      });
      expect(plan.params).toEqual(pub.params);
    }
  });

  it('spells sizes as the seed does', () => {
    expect([64, 1024, 10_240, 102_400, 1_572_864].map(bytesLabel)).toEqual([
      '64 B',
      '1 KB',
      '10 KB',
      '100 KB',
      '1.5 MB',
    ]);
  });
});
