import { describe, expect, it } from 'vitest';
import { mixedBase as base, mixedProfile as profile } from '../support/scenario-profiles.js';
import { planMixed } from '../../src/scenarios/mixed.js';
import { kindOfStream, kindStream } from '../../src/scenarios/types.js';
import { profileFrom } from '../support/profiles.js';

describe('mixed plan', () => {
  it('every connection joins its room with presence (tracked at join) and a postgres_changes binding, whatever the step carries', () => {
    const p = profile([{ ...base, components: ['broadcast'] }, { ...base }]);
    const solo = planMixed(p, 0);
    const all = planMixed(p, 1);
    expect(solo.joinConfigOf(5)).toEqual({
      private: false,
      presenceKey: 'member-5',
      presenceEnabled: true,
      presenceTrackOnJoin: true,
      postgresChanges: [{ event: 'INSERT', schema: 'public', table: 'bench_messages' }],
    });
    expect(all.joinConfigOf(5)).toEqual(solo.joinConfigOf(5));
    expect(solo.topology).toBe(all.topology);
    expect(solo.topicOf(5)).toBe('realtime:bench-1');
    expect(solo.changesKeyOf!(5)).toBe('changes:all');
  });

  it('a step carries only its components; all three by default', () => {
    const p = profile([
      { ...base, components: ['presence'] },
      { ...base, components: ['postgres-changes'] },
      { ...base },
    ]);
    const [pr, cdc, all] = [0, 1, 2].map((i) => planMixed(p, i));
    expect([pr.broadcasts, pr.presence !== null, pr.inserts]).toEqual([null, true, null]);
    expect(pr.primaryKind).toBe('presence');
    expect([cdc.broadcasts, cdc.presence, cdc.inserts !== null]).toEqual([null, null, true]);
    expect(cdc.primaryKind).toBe('changes');
    expect(all.params.components).toBe('broadcast+presence+postgres-changes');
    // 3 rooms × 2/s × 2 s broadcasts, 12 × 0.5 × 2 s updates, 2/s × 2 s rows.
    expect([all.broadcasts!.count, all.presence!.count, all.inserts!.count]).toEqual([12, 12, 4]);
  });

  it("each kind's stream names who receives it: the sender's room (broadcast without it, presence with it) or the subscribers", () => {
    const plan = planMixed(profile([{ ...base }]), 0);
    const b = plan.broadcasts!.senderOf(4);
    expect(kindOfStream(b.stream)).toBe('broadcast');
    expect(plan.streamInfo(b.stream)).toEqual({
      key: plan.topicOf(b.conn),
      excludeSender: true,
      sender: b.conn,
    });
    const u = plan.presence!.senderOf(7);
    expect(u.stream).toBe(kindStream('presence', u.conn));
    expect(plan.streamInfo(u.stream)).toEqual({
      key: plan.topicOf(u.conn),
      excludeSender: false,
      sender: u.conn,
    });
    const r = plan.inserts!.rowOf(1);
    expect(plan.streamInfo(r.stream)).toEqual({
      key: 'changes:all',
      excludeSender: false,
      sender: null,
    });
  });

  it('broadcast self follows load.self; presence always reaches the tracker', () => {
    const p = profileFrom({
      name: 'm',
      scenario: 'mixed',
      load: { self: true, steps: [{ ...base }] },
    });
    const plan = planMixed(p, 0);
    expect(plan.streamInfo(plan.broadcasts!.senderOf(0).stream).excludeSender).toBe(false);
    expect(plan.streamInfo(plan.presence!.senderOf(0).stream).excludeSender).toBe(false);
    const noSelf = planMixed(profile([{ ...base }]), 0);
    expect(noSelf.streamInfo(noSelf.presence!.senderOf(0).stream).excludeSender).toBe(false);
  });
});
