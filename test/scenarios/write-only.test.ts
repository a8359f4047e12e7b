import { describe, expect, it } from 'vitest';
import { writeOnlyProfile as p } from '../support/scenario-profiles.js';
import { planWriteOnly } from '../../src/scenarios/write-only.js';
import { kindStream } from '../../src/scenarios/types.js';

describe('write-only plan', () => {
  it('puts every sender alone on its own topic and spreads the rate round-robin over them', () => {
    const plan = planWriteOnly(p, 0);
    expect([0, 1, 2, 3].map((i) => plan.topicOf(i))).toEqual([
      'realtime:bench-w0',
      'realtime:bench-w1',
      'realtime:bench-w2',
      'realtime:bench-w3',
    ]);
    expect(plan.joinConfigOf(0)).toEqual({ private: false });
    expect(plan.broadcasts!.count).toBe(30);
    const perSender = [0, 0, 0, 0];
    for (let k = 0; k < 30; k++) {
      const s = plan.broadcasts!.senderOf(k);
      expect(s.stream).toBe(kindStream('broadcast', s.conn));
      expect(s.seq).toBe(perSender[s.conn]++);
      // Its topic has no other member, and the sender does not receive itself: nothing is expected.
      expect(plan.streamInfo(s.stream)).toEqual({
        key: plan.topicOf(s.conn),
        excludeSender: true,
        sender: s.conn,
      });
    }
    expect(perSender).toEqual([8, 8, 7, 7]);
    expect(plan.params).toMatchObject({ senders: 4, receivers: 0, send_rate: 10, ack: true });
  });

  it('keeps a sender on its topic when a later step adds senders', () => {
    const [a, b] = [planWriteOnly(p, 0), planWriteOnly(p, 1)];
    for (let i = 0; i < 4; i++) expect(b.topicOf(i)).toBe(a.topicOf(i));
    expect(b.topology).toBeUndefined();
  });
});
