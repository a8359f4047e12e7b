import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbedded, type EmbeddedHandle } from '../../../src/server/db/embedded.js';
import { migrate } from '../../../src/server/db/migration.js';

describe('migration', () => {
  let h: EmbeddedHandle;
  const clients: pg.Client[] = [];

  async function client(): Promise<pg.Client> {
    const c = new pg.Client({ connectionString: h.connectionString });
    await c.connect();
    clients.push(c);
    return c;
  }

  beforeAll(async () => {
    h = await startEmbedded({});
  });

  afterAll(async () => {
    for (const c of clients) await c.end().catch(() => undefined);
    await h?.stop();
  });

  it('is idempotent, also when several processes run it at once', async () => {
    const [a, b, c] = await Promise.all([client(), client(), client()]);
    await Promise.all([migrate(a), migrate(b), migrate(c)]);
    await migrate(a);
    const r = await a.query(`select count(*)::int as n from rtcap_bench.migrations`);
    expect(r.rows[0].n).toBe(1);
  });

  it('creates what a Supabase project has', async () => {
    const c = await client();
    const roles = await c.query(
      `select rolname, rolcanlogin, rolbypassrls from pg_roles where rolname in ('anon','authenticated','service_role') order by 1`,
    );
    expect(roles.rows).toEqual([
      { rolname: 'anon', rolcanlogin: false, rolbypassrls: false },
      { rolname: 'authenticated', rolcanlogin: false, rolbypassrls: false },
      { rolname: 'service_role', rolcanlogin: false, rolbypassrls: true },
    ]);
    const rls = await c.query(
      `select relrowsecurity from pg_class where oid = 'realtime.messages'::regclass`,
    );
    expect(rls.rows[0].relrowsecurity).toBe(true);
    const cols = await c.query(
      `select attname from pg_attribute where attrelid = 'realtime.messages'::regclass and attnum > 0 and not attisdropped order by attnum`,
    );
    expect(cols.rows.map((x) => x.attname)).toEqual([
      'topic',
      'extension',
      'payload',
      'event',
      'private',
      'updated_at',
      'inserted_at',
      'id',
      'binary_payload',
    ]);
    const subCols = await c.query(
      `select attname from pg_attribute where attrelid = 'realtime.subscription'::regclass and attnum > 0 and not attisdropped order by attnum`,
    );
    expect(subCols.rows.map((x) => x.attname)).toEqual(
      expect.arrayContaining([
        'subscription_id',
        'entity',
        'filters',
        'claims',
        'claims_role',
        'action_filter',
        'selected_columns',
      ]),
    );
    await c.query('begin');
    await c.query(`select set_config('realtime.topic', 'room-9', true)`);
    expect((await c.query(`select realtime.topic() as t`)).rows[0].t).toBe('room-9');
    await c.query('rollback');
    const pub = await c.query(
      `select tablename from pg_publication_tables where pubname = 'supabase_realtime' order by 1`,
    );
    expect(pub.rows.map((x) => x.tablename)).toEqual(['bench_messages', 'bench_open_messages']);
    const grants = await c.query(
      `select has_table_privilege('authenticated', 'realtime.messages', 'INSERT') as ins, has_table_privilege('anon', 'realtime.messages', 'SELECT') as sel,
              has_table_privilege('anon', 'public.bench_messages', 'SELECT') as bench`,
    );
    expect(grants.rows[0]).toEqual({ ins: true, sel: true, bench: true });
  });

  it('creates a publication under another name when asked', async () => {
    const c = await client();
    await migrate(c, 'rtcap_other_pub');
    const pub = await c.query(
      `select count(*)::int as n from pg_publication_tables where pubname = 'rtcap_other_pub'`,
    );
    expect(pub.rows[0].n).toBe(2);
  });
});
