/**
 * `rtcap serve --workers 2`: one port, connections spread over two
 * processes, and broadcasts, presence, quotas, the database and /metrics spanning both.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster } from '../../src/server/cluster/primary.js';
import { startDatabase } from '../../src/server/db/index.js';
import type { ServerDb } from '../../src/server/db/server-db.js';
import type { RunningServer } from '../../src/server/server.js';
import { FAST_TIMINGS, RawClient, refusedUpgrade, token, until } from '../server/helpers.js';

let db: ServerDb;
let srv: RunningServer & { workers: number };
const clients: RawClient[] = [];

beforeAll(async () => {
  db = await startDatabase({ dbPool: 2, subsPoolSize: 1, pollIntervalMs: 20 });
  srv = await startCluster({
    workers: 2,
    port: 0,
    db,
    config: { max_concurrent_users: 12 },
    timings: { ...FAST_TIMINGS, rateTickMs: 100 },
    log: () => undefined,
  });
});
afterAll(async () => {
  for (const c of clients) c.close();
  await srv?.close();
  await db?.stop();
});

async function member(
  topic: string,
  config: Record<string, unknown> = {},
  apikey?: string,
): Promise<RawClient> {
  const c = await RawClient.open(srv.port, { vsn: '2.0.0', apikey: apikey ?? (await token()) });
  clients.push(c);
  c.send(['1', '1', topic, 'phx_join', { config }]);
  expect((await c.v2('phx_reply', '1', 8000))[4]).toMatchObject({ status: 'ok' });
  return c;
}

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${srv.port}/metrics`)).text();
  return Number(
    text
      .split('\n')
      .find((l) => l.startsWith(`${name} `))
      ?.split(' ')[1],
  );
}

describe('two workers on one port', () => {
  it('fans a broadcast out to members on both workers', async () => {
    const members: RawClient[] = [];
    for (let i = 0; i < 6; i++) members.push(await member('realtime:cl'));
    members[0].send([null, '2', 'realtime:cl', 'broadcast', { event: 'e', payload: { n: 1 } }]);
    await until(
      () =>
        members
          .slice(1)
          .every((m) => m.frames.some((f) => Array.isArray(f.json) && f.json[3] === 'broadcast')),
      5000,
      'all members',
    );
    expect(members[0].frames.some((f) => Array.isArray(f.json) && f.json[3] === 'broadcast')).toBe(
      false,
    );
    // Round-robin spread the sockets: both workers hold some (the aggregated gauge sums them).
    expect(await metric('realtime_connections_connected')).toBe(6);
    const text = await (await fetch(`http://127.0.0.1:${srv.port}/metrics`)).text();
    const perWorker = [1, 2].map((w) =>
      Number(
        text
          .split('\n')
          .find((l) => l.startsWith(`realtime_worker_connections{worker="${w}"} `))
          ?.split(' ')[1],
      ),
    );
    expect(perWorker.every((n) => n > 0)).toBe(true);
    expect(perWorker[0] + perWorker[1]).toBe(6);
    expect(await metric('realtime_broadcast_deliveries_total')).toBe(5);
  });

  it('replicates presence across workers', async () => {
    const a = await member('realtime:clp', { presence: { key: 'a', enabled: true } });
    const others: RawClient[] = [];
    for (let i = 0; i < 3; i++)
      others.push(await member('realtime:clp', { presence: { key: `o${i}`, enabled: true } }));
    a.send([
      null,
      '2',
      'realtime:clp',
      'presence',
      { type: 'presence', event: 'track', payload: { who: 'a' } },
    ]);
    await a.v2('phx_reply', '2');
    await until(
      () =>
        others.every((o) =>
          o.frames.some((f) => Array.isArray(f.json) && f.json[3] === 'presence_diff'),
        ),
      5000,
      'diffs',
    );
    const late = await member('realtime:clp', { presence: { key: 'late', enabled: true } });
    const state = (await late.v2('presence_state'))[4] as Record<string, unknown>;
    expect(Object.keys(state)).toEqual(['a']);
  });

  it('counts users instance-wide for max_concurrent_users', async () => {
    // 10 users joined so far (6 + 4 + the late one is 11); one more reaches the limit of 12.
    await member('realtime:fill');
    await new Promise((r) => setTimeout(r, 400)); // a flush and a tick
    expect(await refusedUpgrade(srv.port, `apikey=${await token()}`)).toEqual({
      status: 429,
      body: '{"error":"Too many connected users"}',
    });
  });

  it('authorises private channels and delivers Postgres changes through the primary database', async () => {
    clients.splice(0).forEach((c) => c.close());
    await new Promise((r) => setTimeout(r, 400));
    const authed = await token({ role: 'authenticated', sub: 'u1' });
    const a = await member('realtime:room-cl', { private: true }, authed);
    const b = await member('realtime:room-cl', { private: true }, authed);
    b.send([null, '2', 'realtime:room-cl', 'broadcast', { event: 'p', payload: {} }]);
    await a.v2('broadcast', null, 8000);
    const watchers: RawClient[] = [];
    for (let i = 0; i < 2; i++)
      watchers.push(
        await member('realtime:pgcl', {
          postgres_changes: [{ event: 'INSERT', schema: 'public', table: 'bench_open_messages' }],
        }),
      );
    for (const w of watchers) await w.v2('system', null, 8000);
    const sql = new pg.Client({ connectionString: db.connectionString() });
    await sql.connect();
    await sql.query("insert into bench_open_messages (room_id, body) values (1, 'cluster')");
    await sql.end();
    for (const w of watchers) {
      const m = await w.v2('postgres_changes', null, 8000);
      expect((m[4] as { data: { record: { body: string } } }).data.record.body).toBe('cluster');
    }
  });
});
