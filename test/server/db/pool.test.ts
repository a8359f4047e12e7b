import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbedded, type EmbeddedHandle } from '../../../src/server/db/embedded.js';
import { PoolTimeoutError } from '../../../src/server/db/errors.js';
import { ConnectionPool } from '../../../src/server/db/pool.js';

describe('ConnectionPool', () => {
  let h: EmbeddedHandle;
  let pool: ConnectionPool;

  beforeAll(async () => {
    h = await startEmbedded({});
    pool = new ConnectionPool({
      connectionString: h.connectionString,
      size: 1,
      applicationName: 'rtcap_pool_test',
    });
    await pool.start();
  });

  afterAll(async () => {
    await pool?.stop();
    await h?.stop();
  });

  it('queues FIFO and times a waiter out after the queue target', async () => {
    const c = await pool.acquire(100);
    const late = pool.acquire(50).catch((e: unknown) => e);
    const served = pool.acquire(5_000);
    expect(pool.waiting).toBe(2);
    expect(await late).toBeInstanceOf(PoolTimeoutError);
    expect(pool.waiting).toBe(1);
    pool.release(c);
    const c2 = await served;
    expect(pool.waiting).toBe(0);
    pool.release(c2);
  });

  it('replaces a discarded connection', async () => {
    const c = await pool.acquire(100);
    const pid1 = (await c.query('select pg_backend_pid() as p')).rows[0].p;
    pool.release(c, true);
    const c2 = await pool.acquire(5_000);
    const pid2 = (await c2.query('select pg_backend_pid() as p')).rows[0].p;
    pool.release(c2);
    expect(pid2).not.toBe(pid1);
    expect(pool.idleCount).toBe(1);
  });

  it('survives its connection being terminated while idle', async () => {
    const c = await pool.acquire(100);
    const pid = (await c.query('select pg_backend_pid() as p')).rows[0].p;
    pool.release(c);
    const admin = await pool.acquire(100).catch(() => null);
    if (admin) pool.release(admin);
    const { default: pg } = await import('pg');
    const killer = new pg.Client({ connectionString: h.connectionString });
    await killer.connect();
    await killer.query('select pg_terminate_backend($1)', [pid]);
    await killer.end();
    // The next checkout may get the dead connection once (its error event can lag);
    // a failing query on it is discarded, and the slot is refilled.
    let ok = false;
    for (let i = 0; i < 5 && !ok; i++) {
      const x = await pool.acquire(5_000);
      try {
        await x.query('select 1');
        ok = true;
        pool.release(x);
      } catch {
        pool.release(x, true);
      }
    }
    expect(ok).toBe(true);
  });
});
