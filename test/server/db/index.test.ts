import { execFileSync } from 'node:child_process';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { startDatabase } from '../../../src/server/db/index.js';

function postgresOnPort(port: string): string[] {
  return execFileSync('ps', ['-eo', 'args='], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => /postgres/.test(l) && l.includes(`-p ${port}`));
}

describe('startDatabase / stop', () => {
  it('starts embedded Postgres with the schema, redacts the url, and leaves nothing behind on stop', async () => {
    const lines: string[] = [];
    const db = await startDatabase({ dbPool: 1, subsPoolSize: 1, log: (l) => lines.push(l) });
    const password = new URL(db.connectionString()).password;
    const port = new URL(db.connectionString()).port;
    try {
      expect(db.url).toBe(`postgres://postgres:****@127.0.0.1:${port}/postgres`);
      expect(lines.join('\n')).not.toContain(password);
      expect(db.startup?.totalMs).toBeGreaterThan(0);
      expect(db.slotName).toMatch(/^supabase_realtime_replication_slot_rtcap_[0-9a-f]{8}$/);
      const c = new pg.Client({ connectionString: db.connectionString() });
      await c.connect();
      const r = await c.query(
        `select (select count(*)::int from pg_replication_slots where slot_name = $1 and temporary) as slot,
                (select count(*)::int from pg_stat_activity where application_name = 'realtime_connect') as auth_pool,
                (select count(*)::int from pg_stat_activity where application_name = 'realtime_subscription_manager_pub') as subs_pool`,
        [db.slotName],
      );
      await c.end();
      expect(r.rows[0]).toEqual({ slot: 1, auth_pool: 1, subs_pool: 1 });
      expect(db.stats()).toMatchObject({ authPoolWaiting: 0, authErrors: 0, subscriptions: 0 });
      expect(postgresOnPort(port).length).toBeGreaterThan(0);
    } finally {
      await Promise.all([db.stop(), db.stop()]);
    }
    expect(postgresOnPort(port)).toEqual([]);
  });

  it('refuses a database it cannot reach, without leaking', async () => {
    await expect(
      startDatabase({
        databaseUrl: 'postgres://nobody:secret@127.0.0.1:1/none',
        dbPool: 1,
        subsPoolSize: 1,
      }),
    ).rejects.toThrow(/ECONNREFUSED|connect/);
  });
});
