import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDatabase, type ChangeEvent } from '../../../src/server/db/index.js';
import type { ServerDb } from '../../../src/server/db/server-db.js';
import { eventually } from './support.js';

const COMMIT_TS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

function claims(role: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { role, exp: Math.floor(Date.now() / 1000) + 3600, ...extra };
}

describe('Postgres Changes poller (docs/PROTOCOL.md §7)', () => {
  let db: ServerDb;
  let sql: pg.Client;
  const events: ChangeEvent[] = [];

  /** Subscribes and returns the subscription id. */
  async function sub(
    binding: { event: string; schema?: string; table: string; filter?: string },
    c = claims('anon'),
  ): Promise<string> {
    const id = randomUUID();
    await db.subscribe({
      subscriptionId: id,
      claims: c,
      binding: { schema: 'public', ...binding },
    });
    return id;
  }

  /** Events of one change (by table and a predicate on its data); waits for the first. */
  async function eventsFor(
    table: string,
    pred: (e: ChangeEvent) => boolean,
  ): Promise<ChangeEvent[]> {
    const match = (e: ChangeEvent) => e.data.table === table && pred(e);
    await eventually(() => (events.some(match) ? true : undefined), 5_000, 10);
    return events.filter(match);
  }

  function idsOf(evs: ChangeEvent[]): string[] {
    return evs.flatMap((e) => e.subscriptionIds).sort();
  }

  beforeAll(async () => {
    db = await startDatabase({ dbPool: 1, subsPoolSize: 1, pollIntervalMs: 20 });
    db.onChange((e) => events.push(e));
    sql = new pg.Client({ connectionString: db.connectionString() });
    await sql.connect();
  });

  afterAll(async () => {
    await sql?.end();
    await db?.stop();
  });

  it('delivers INSERT, UPDATE and DELETE to exactly the matching subscriptions, shaped as §7.3', async () => {
    const all = await sub({ event: '*', table: 'bench_open_messages' });
    const inserts7 = await sub({
      event: 'INSERT',
      table: 'bench_open_messages',
      filter: 'room_id=eq.7',
    });
    const inserts8 = await sub({
      event: 'INSERT',
      table: 'bench_open_messages',
      filter: 'room_id=eq.8',
    });
    const updates = await sub({ event: 'UPDATE', table: 'bench_open_messages' });
    const deletes = await sub({ event: 'delete', table: 'bench_open_messages' });
    const other = await sub({ event: '*', table: 'bench_messages' });

    const { rows } = await sql.query(
      `insert into bench_open_messages (room_id, body, sent_at) values (7, 'hello', 1.5) returning id, created_at`,
    );
    const id = Number(rows[0].id);
    const ins = await eventsFor(
      'bench_open_messages',
      (e) => e.data.type === 'INSERT' && e.data.record?.id === id,
    );
    expect(ins).toHaveLength(1);
    expect(idsOf(ins)).toEqual([all, inserts7].sort());
    const data = ins[0].data;
    expect(data).toMatchObject({
      schema: 'public',
      table: 'bench_open_messages',
      type: 'INSERT',
      errors: null,
    });
    expect(data.commit_timestamp).toMatch(COMMIT_TS);
    expect(data.columns).toEqual([
      { name: 'id', type: 'int8' },
      { name: 'room_id', type: 'int4' },
      { name: 'body', type: 'text' },
      { name: 'created_at', type: 'timestamptz' },
      { name: 'sent_at', type: 'float8' },
    ]);
    expect(data.record).toMatchObject({ id, room_id: 7, body: 'hello', sent_at: 1.5 });
    expect(Date.parse(data.record!.created_at as string)).toBe(
      (rows[0].created_at as Date).getTime(),
    );
    expect(data.record!.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+\+00:00$/);
    expect(data.old_record).toBeUndefined();

    await sql.query(`update bench_open_messages set body = 'edited', room_id = 8 where id = $1`, [
      id,
    ]);
    const upd = await eventsFor(
      'bench_open_messages',
      (e) => e.data.type === 'UPDATE' && e.data.record?.id === id,
    );
    expect(idsOf(upd)).toEqual([all, updates].sort());
    expect(upd[0].data.record).toMatchObject({ id, room_id: 8, body: 'edited' });
    expect(upd[0].data.old_record).toEqual({ id });

    await sql.query(`delete from bench_open_messages where id = $1`, [id]);
    const del = await eventsFor(
      'bench_open_messages',
      (e) => e.data.type === 'DELETE' && e.data.old_record?.id === id,
    );
    expect(idsOf(del)).toEqual([all, deletes].sort());
    expect(del[0].data.old_record).toEqual({ id });
    expect(del[0].data.record).toBeUndefined();

    for (const ev of events) {
      expect(ev.subscriptionIds).not.toContain(other);
      expect(ev.subscriptionIds).not.toContain(inserts8);
    }
    await db.unsubscribe([all, inserts7, inserts8, updates, deletes, other]);
  });

  it('evaluates neq, lt, lte, gt, gte, in and like with the column type', async () => {
    const subs = {
      neq: await sub({ event: 'INSERT', table: 'bench_open_messages', filter: 'room_id=neq.5' }),
      lt: await sub({ event: 'INSERT', table: 'bench_open_messages', filter: 'room_id=lt.10' }),
      lte: await sub({ event: 'INSERT', table: 'bench_open_messages', filter: 'room_id=lte.9' }),
      gt: await sub({ event: 'INSERT', table: 'bench_open_messages', filter: 'room_id=gt.9' }),
      gte: await sub({ event: 'INSERT', table: 'bench_open_messages', filter: 'room_id=gte.10' }),
      in: await sub({
        event: 'INSERT',
        table: 'bench_open_messages',
        filter: 'room_id=in.(3,10,20)',
      }),
      text: await sub({ event: 'INSERT', table: 'bench_open_messages', filter: 'body=eq.needle' }),
      like: await sub({ event: 'INSERT', table: 'bench_open_messages', filter: 'body=like.nee%' }),
    };
    const expected: Record<number, string[]> = {
      5: [subs.lt, subs.lte],
      9: [subs.neq, subs.lt, subs.lte],
      // 10 > 9 numerically although "10" < "9" as text
      10: [subs.neq, subs.gt, subs.gte, subs.in],
    };
    for (const room of [5, 9, 10]) {
      const { rows } = await sql.query(
        `insert into bench_open_messages (room_id, body) values ($1, 'hay') returning id`,
        [room],
      );
      const id = Number(rows[0].id);
      const evs = await eventsFor('bench_open_messages', (e) => e.data.record?.id === id);
      expect(idsOf(evs)).toEqual([...expected[room]].sort());
    }
    const { rows } = await sql.query(
      `insert into bench_open_messages (room_id, body) values (5, 'needle') returning id`,
    );
    const evs = await eventsFor(
      'bench_open_messages',
      (e) => e.data.record?.id === Number(rows[0].id),
    );
    expect(idsOf(evs)).toEqual([subs.lt, subs.lte, subs.text, subs.like].sort());
    await db.unsubscribe(Object.values(subs));
  });

  it('applies each subscriber’s RLS: hidden rows are not delivered; DELETE is not RLS-checked', async () => {
    const room1 = await sub(
      { event: '*', table: 'bench_messages' },
      claims('authenticated', { sub: 'u1', rooms: [1] }),
    );
    const room1again = await sub(
      { event: '*', table: 'bench_messages' },
      claims('authenticated', { sub: 'u1', rooms: [1] }),
    );
    const room2 = await sub(
      { event: '*', table: 'bench_messages' },
      claims('authenticated', { sub: 'u2', rooms: [2] }),
    );
    const everyRoom = await sub(
      { event: '*', table: 'bench_messages' },
      claims('authenticated', { sub: 'u3', rooms: '*' }),
    );
    const anon = await sub({ event: '*', table: 'bench_messages' }, claims('anon'));
    const service = await sub({ event: '*', table: 'bench_messages' }, claims('service_role'));

    const { rows } = await sql.query(
      `insert into bench_messages (room_id, body) values (1, 'for room 1') returning id`,
    );
    const id = Number(rows[0].id);
    const ins = await eventsFor(
      'bench_messages',
      (e) => e.data.type === 'INSERT' && e.data.record?.id === id,
    );
    expect(idsOf(ins)).toEqual([room1, room1again, everyRoom, service].sort());
    expect(ins.flatMap((e) => e.subscriptionIds)).not.toContain(room2);
    expect(ins.flatMap((e) => e.subscriptionIds)).not.toContain(anon);

    await sql.query(`update bench_messages set room_id = 2 where id = $1`, [id]);
    const upd = await eventsFor(
      'bench_messages',
      (e) => e.data.type === 'UPDATE' && e.data.record?.id === id,
    );
    expect(idsOf(upd)).toEqual([room2, everyRoom, service].sort());

    await sql.query(`delete from bench_messages where id = $1`, [id]);
    const del = await eventsFor(
      'bench_messages',
      (e) => e.data.type === 'DELETE' && e.data.old_record?.id === id,
    );
    expect(idsOf(del)).toEqual([room1, room1again, room2, everyRoom, anon, service].sort());
    await db.unsubscribe([room1, room1again, room2, everyRoom, anon, service]);
  });

  it('sends only the primary key of an RLS table’s old row, even with REPLICA IDENTITY FULL', async () => {
    await sql.query(`
      create table public.t_full (id int primary key, room_id int, body text);
      alter table public.t_full replica identity full;
      grant all on public.t_full to anon, authenticated;
      alter publication supabase_realtime add table public.t_full;`);
    const s = await sub({ event: '*', table: 't_full' }, claims('service_role'));
    const filtered = await sub(
      { event: 'DELETE', table: 't_full', filter: 'room_id=eq.4' },
      claims('service_role'),
    );
    await sql.query(`insert into t_full values (1, 4, 'a'); delete from t_full where id = 1`);
    const plain = await eventsFor('t_full', (e) => e.data.type === 'DELETE');
    // Without RLS the full old row is sent and filters see it.
    expect(plain[0].data.old_record).toEqual({ id: 1, room_id: 4, body: 'a' });
    expect(idsOf(plain)).toEqual([s, filtered].sort());
    await sql.query(
      `alter table public.t_full enable row level security; insert into t_full values (2, 4, 'b'); update t_full set body = 'c' where id = 2`,
    );
    const upd = await eventsFor('t_full', (e) => e.data.type === 'UPDATE');
    expect(upd[0].data.record).toEqual({ id: 2, room_id: 4, body: 'c' });
    expect(upd[0].data.old_record).toEqual({ id: 2 });
    await sql.query(`delete from t_full where id = 2`);
    const del = await eventsFor(
      't_full',
      (e) => e.data.type === 'DELETE' && e.data.old_record?.id === 2,
    );
    expect(del[0].data.old_record).toEqual({ id: 2 });
    await db.unsubscribe([s, filtered]);
  });

  it('removes columns the role cannot select', async () => {
    await sql.query(`
      create table public.t_columns (id int primary key, visible text, secret text);
      revoke all on public.t_columns from anon, authenticated;
      grant select (id, visible) on public.t_columns to authenticated;
      alter publication supabase_realtime add table public.t_columns;`);
    const s = await sub({ event: 'INSERT', table: 't_columns' }, claims('authenticated'));
    await sql.query(`insert into t_columns values (1, 'shown', 'hidden')`);
    const evs = await eventsFor('t_columns', () => true);
    expect(idsOf(evs)).toEqual([s]);
    expect(evs[0].data.columns).toEqual([
      { name: 'id', type: 'int4' },
      { name: 'visible', type: 'text' },
    ]);
    expect(evs[0].data.record).toEqual({ id: 1, visible: 'shown' });
    await db.unsubscribe([s]);
  });

  it('reports a table without a primary key to its subscribers', async () => {
    await sql.query(`
      create table public.t_nopk (x int, note text);
      alter publication supabase_realtime add table public.t_nopk;`);
    const s = await sub({ event: 'INSERT', table: 't_nopk', filter: 'x=eq.99' });
    await sql.query(`insert into t_nopk values (1, 'a')`);
    const evs = await eventsFor('t_nopk', () => true);
    // The error goes to every subscriber of the role, filters are not evaluated.
    expect(idsOf(evs)).toEqual([s]);
    expect(evs[0].data).toMatchObject({
      type: 'INSERT',
      columns: [],
      record: {},
      errors: ['Error 400: Bad Request, no primary key'],
    });
    await db.unsubscribe([s]);
  });

  it('cuts records over pollMaxRecordBytes to values of 64 bytes or less, with Error 413', async () => {
    const small = await startDatabase({
      databaseUrl: db.connectionString(),
      dbPool: 1,
      subsPoolSize: 1,
      pollIntervalMs: 20,
      pollMaxRecordBytes: 300,
    });
    const seen: ChangeEvent[] = [];
    small.onChange((e) => seen.push(e));
    try {
      const id = randomUUID();
      await small.subscribe({
        subscriptionId: id,
        claims: claims('anon'),
        binding: { event: 'INSERT', schema: 'public', table: 'bench_open_messages' },
      });
      const { rows } = await sql.query(
        `insert into bench_open_messages (room_id, body) values (3, repeat('x', 1000)) returning id`,
      );
      const rowId = Number(rows[0].id);
      await eventually(
        () => (seen.some((e) => e.data.record?.id === rowId) ? true : undefined),
        5_000,
        10,
      );
      const ev = seen.find((e) => e.data.record?.id === rowId)!;
      expect(ev.subscriptionIds).toEqual([id]);
      expect(ev.data.errors).toEqual(['Error 413: Payload Too Large']);
      expect(ev.data.record).toMatchObject({ id: rowId, room_id: 3 });
      expect(ev.data.record).not.toHaveProperty('body');
    } finally {
      await small.stop();
    }
  });

  it('polls by the §7.1 cadence: idle slot every 5 × interval, at once again after deliveries, in batches', async () => {
    const paced = await startDatabase({
      databaseUrl: db.connectionString(),
      dbPool: 1,
      subsPoolSize: 1,
      pollIntervalMs: 400,
      pollMaxChanges: 8,
    });
    const seen: ChangeEvent[] = [];
    const seenAtMs: number[] = [];
    paced.onChange((e) => {
      seen.push(e);
      seenAtMs.push(performance.now());
    });
    try {
      // Idle: one poll at start, then one per 2 s (never one per 400 ms).
      const idleFrom = paced.stats().polls;
      await new Promise((r) => setTimeout(r, 1_500));
      expect(paced.stats().polls - idleFrom).toBeLessThanOrEqual(2);

      const id = randomUUID();
      await paced.subscribe({
        subscriptionId: id,
        claims: claims('anon'),
        binding: {
          event: 'INSERT',
          schema: 'public',
          table: 'bench_open_messages',
          filter: 'body=eq.paced',
        },
      });
      for (let i = 0; i < 40; i++)
        await sql.query(`insert into bench_open_messages (body) values ('paced')`);
      const before = paced.stats().polls;
      // 40 one-row transactions are 120+ slot rows: more than 15 polls of 8; at one poll per
      // 400 ms that would take 6 s or more, re-polling at once after each delivery it does not.
      await eventually(
        () =>
          seen.filter((e) => e.data.record?.body === 'paced').length === 40 ? true : undefined,
        20_000,
        20,
      );
      const polls = paced.stats().polls - before;
      expect(polls).toBeGreaterThanOrEqual(10);
      // The delivering polls followed each other without the 400 ms pause: had they waited,
      // first-to-last delivery would span at least (delivering polls − 1) × 400 ms.
      const spanMs = seenAtMs[seenAtMs.length - 1] - seenAtMs[0];
      expect(spanMs).toBeLessThan(((polls - 2) * 400) / 2);
      expect(seen.every((e) => e.subscriptionIds.length === 1 && e.subscriptionIds[0] === id)).toBe(
        true,
      );
    } finally {
      await paced.stop();
    }
  });

  it('stops delivering after unsubscribe and reports poller stats', async () => {
    const a = await sub({
      event: 'INSERT',
      table: 'bench_open_messages',
      filter: 'body=eq.after-unsub',
    });
    const b = await sub({
      event: 'INSERT',
      table: 'bench_open_messages',
      filter: 'body=eq.after-unsub',
    });
    await db.unsubscribe([a]);
    const { rows } = await sql.query(
      `insert into bench_open_messages (body) values ('after-unsub') returning id`,
    );
    const evs = await eventsFor(
      'bench_open_messages',
      (e) => e.data.record?.id === Number(rows[0].id),
    );
    expect(idsOf(evs)).toEqual([b]);
    const left = await sql.query(
      `select count(*)::int as n from realtime.subscription where subscription_id = $1`,
      [a],
    );
    expect(left.rows[0].n).toBe(0);
    await db.unsubscribe([b]);
    const st = db.stats();
    expect(st.lastPollMs).not.toBeNull();
    expect(st.pollerLagMs).not.toBeNull();
    expect(st.changes).toBeGreaterThan(0);
    expect(st.subscriptions).toBe(0);
  });
});
