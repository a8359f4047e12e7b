import { describe, expect, it } from 'vitest';
import { planPostgresChanges } from '../../src/scenarios/postgres-changes.js';
import { defaultInsertSql, INSERT_LANES } from '../../src/scenarios/changes.js';
import { kindOfStream, kindStream } from '../../src/scenarios/types.js';
import { profileFrom } from '../support/profiles.js';

const profile = (steps: Record<string, unknown>[], extra: Record<string, unknown> = {}) =>
  profileFrom({ name: 'cdc-test', scenario: 'postgres-changes', load: { steps }, ...extra });

describe('postgres-changes plan (seed §6)', () => {
  it('unfiltered: every subscriber binds the table, one row per round seen by all', () => {
    const plan = planPostgresChanges(
      profile([{ connections: 50, insert_rate: 2, duration: 2 }]),
      0,
    );
    expect(plan.joinConfigOf(7)).toEqual({
      private: false,
      postgresChanges: [{ event: 'INSERT', schema: 'public', table: 'bench_messages' }],
    });
    expect(plan.changesKeyOf!(7)).toBe('changes:all');
    expect(plan.userClaimsOf!(7)).toEqual({ sub: 'subscriber-7', rooms: '*' });
    expect(plan.primaryKind).toBe('changes');
    const ins = plan.inserts!;
    expect(ins.count).toBe(4);
    expect(ins.sql).toBe(
      'insert into "public"."bench_messages" (room_id, body, sent_at) values ($1, $2, $3)',
    );
    // Rows take the lanes in turn; each lane's seqs are 0, 1, … and every lane is seen by all.
    const rows = [0, 1, 2, 3].map(ins.rowOf);
    expect(rows.map((r) => r.stream)).toEqual([0, 1, 2, 3].map((n) => kindStream('changes', n)));
    expect(rows.every((r) => r.seq === 0 && kindOfStream(r.stream) === 'changes')).toBe(true);
    expect(ins.rowOf(INSERT_LANES)).toMatchObject({ stream: kindStream('changes', 0), seq: 1 });
    expect(plan.streamInfo(rows[2].stream)).toEqual({
      key: 'changes:all',
      excludeSender: false,
      sender: null,
    });
    expect(plan.params).toMatchObject({
      subscribers: 50,
      rounds: 4,
      changes_per_round: 1,
      deliveries_expected_target: 200,
      filtered: false,
    });
  });

  it("filtered: room r's subscribers bind room_id=eq.r and see room r's rows, one per room per round", () => {
    const plan = planPostgresChanges(
      profile([{ connections: 12, rooms: 4, filtered: true, insert_rate: 9, duration: 2 }]),
      0,
    );
    expect(plan.topicOf(5)).toBe('realtime:bench-1');
    expect(plan.joinConfigOf(5).postgresChanges).toEqual([
      { event: 'INSERT', schema: 'public', table: 'bench_messages', filter: 'room_id=eq.1' },
    ]);
    expect(plan.changesKeyOf!(5)).toBe('changes:room-1');
    const ins = plan.inserts!;
    expect(ins.count).toBe(16); // 18 rows asked, whole rounds of 4 kept
    for (let k = 0; k < ins.count; k++) {
      const r = ins.rowOf(k);
      expect(r.roomId).toBe(k % 4);
      expect(r.stream).toBe(kindStream('changes', k % 4));
      expect(r.seq).toBe(Math.floor(k / 4));
      expect(plan.streamInfo(r.stream).key).toBe(`changes:room-${r.roomId}`);
    }
    // rounds × subscribers: each row reaches its room's 3 subscribers.
    expect(plan.params).toMatchObject({
      rounds: 4,
      changes_per_round: 4,
      deliveries_expected_target: 48,
    });
  });

  it('no insert rate: a subscribe-only step (reconciliation alone)', () => {
    expect(planPostgresChanges(profile([{ connections: 5, duration: 1 }]), 0).inserts).toBeNull();
  });

  it('the table, event, filter column, claims and SQL come from the changes section', () => {
    const p = profile([{ connections: 4, rooms: 2, filtered: true, insert_rate: 2, duration: 1 }], {
      changes: {
        schema: 'app',
        table: 'msgs',
        event: '*',
        filter_column: 'chan',
        claims: { rooms: [0, 1] },
        insert_sql: 'insert into app.msgs(chan, body, sent_at) values ($1, $2, $3)',
      },
    });
    const plan = planPostgresChanges(p, 0);
    expect(plan.joinConfigOf(1).postgresChanges).toEqual([
      { event: '*', schema: 'app', table: 'msgs', filter: 'chan=eq.1' },
    ]);
    expect(plan.userClaimsOf!(1)).toEqual({ sub: 'subscriber-1', rooms: [0, 1] });
    expect(plan.inserts!.sql).toBe('insert into app.msgs(chan, body, sent_at) values ($1, $2, $3)');
    expect(defaultInsertSql(p)).toBe(
      'insert into "app"."msgs" (room_id, body, sent_at) values ($1, $2, $3)',
    );
  });

  it('more subscribers keep the topology; a filter or rooms change does not', () => {
    const p = profile([
      { connections: 10, rooms: 2, insert_rate: 1, duration: 1 },
      { connections: 20, rooms: 2, insert_rate: 1, duration: 1 },
      { connections: 20, rooms: 2, filtered: true, insert_rate: 1, duration: 1 },
    ]);
    const [a, b, c] = [0, 1, 2].map((i) => planPostgresChanges(p, i));
    expect(a.topology).toBe(b.topology);
    expect(c.topology).not.toBe(b.topology);
    for (let i = 0; i < 10; i++) expect(b.topicOf(i)).toBe(a.topicOf(i));
  });
});
