import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthorizationError, startDatabase } from '../../../src/server/db/index.js';
import type { ServerDb } from '../../../src/server/db/server-db.js';
import { ctx, eventually, sleep } from './support.js';

describe('private-channel authorisation (docs/PROTOCOL.md §6)', () => {
  let db: ServerDb;

  beforeAll(async () => {
    db = await startDatabase({ dbPool: 2, subsPoolSize: 1, slowPolicyMs: 0 });
  });

  afterAll(async () => {
    await db?.stop();
  });

  it('allows broadcast and presence read on room-* topics for authenticated', async () => {
    expect(await db.authorizeRead(ctx('authenticated', 'room-1'), { presence: true })).toEqual({
      broadcast: true,
      presence: true,
    });
    expect(await db.authorizeRead(ctx('authenticated', 'bench-42'), { presence: false })).toEqual({
      broadcast: true,
      presence: false,
    });
  });

  it('denies topics no policy covers, and anon everywhere', async () => {
    expect(await db.authorizeRead(ctx('authenticated', 'secret-1'), { presence: true })).toEqual({
      broadcast: false,
      presence: false,
    });
    expect(await db.authorizeRead(ctx('anon', 'room-1'), { presence: true })).toEqual({
      broadcast: false,
      presence: false,
    });
    expect(await db.authorizeWrite(ctx('anon', 'room-1'), 'broadcast')).toBe(false);
  });

  it('checks write under the user role: allowed on room-*, denied on readonly-* and unknown topics', async () => {
    expect(await db.authorizeWrite(ctx('authenticated', 'room-1'), 'broadcast')).toBe(true);
    expect(await db.authorizeWrite(ctx('authenticated', 'room-1'), 'presence')).toBe(true);
    expect(await db.authorizeRead(ctx('authenticated', 'readonly-1'), { presence: true })).toEqual({
      broadcast: true,
      presence: true,
    });
    expect(await db.authorizeWrite(ctx('authenticated', 'readonly-1'), 'broadcast')).toBe(false);
    expect(await db.authorizeWrite(ctx('authenticated', 'secret-1'), 'presence')).toBe(false);
  });

  it('passes the claims: user-<sub> is only for the JWT with that sub', async () => {
    expect(
      await db.authorizeRead(ctx('authenticated', 'user-alice', { sub: 'alice' }), {
        presence: false,
      }),
    ).toEqual({ broadcast: true, presence: false });
    expect(
      await db.authorizeRead(ctx('authenticated', 'user-alice', { sub: 'bob' }), {
        presence: false,
      }),
    ).toEqual({ broadcast: false, presence: false });
    expect(
      await db.authorizeWrite(ctx('authenticated', 'user-bob', { sub: 'bob' }), 'broadcast'),
    ).toBe(true);
    expect(
      await db.authorizeWrite(ctx('authenticated', 'user-bob', { sub: 'alice' }), 'broadcast'),
    ).toBe(false);
  });

  it('lets service_role through (it bypasses RLS, as on Supabase)', async () => {
    expect(await db.authorizeRead(ctx('service_role', 'secret-1'), { presence: true })).toEqual({
      broadcast: true,
      presence: true,
    });
    expect(await db.authorizeWrite(ctx('service_role', 'secret-1'), 'broadcast')).toBe(true);
  });

  it('leaves no probe rows behind', async () => {
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        db.authorizeRead(ctx('authenticated', `room-${i}`), { presence: true }),
      ),
    );
    await db.authorizeWrite(ctx('authenticated', 'room-1'), 'broadcast');
    const c = new pg.Client({ connectionString: db.connectionString() });
    await c.connect();
    try {
      expect((await c.query('select count(*)::int as n from realtime.messages')).rows[0].n).toBe(0);
    } finally {
      await c.end();
    }
  });

  it('reports a failing policy query as db_error without counting it as a pool error', async () => {
    const err = await db
      .authorizeRead(ctx('no_such_role', 'room-1'), { presence: false })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthorizationError);
    expect((err as AuthorizationError).code).toBe('db_error');
    expect(db.stats().authErrors).toBe(0);
    // The connection is fine afterwards.
    expect(await db.authorizeRead(ctx('authenticated', 'room-1'), { presence: false })).toEqual({
      broadcast: true,
      presence: false,
    });
  });

  describe('the authorisation-rate ceiling (§6.4)', () => {
    let small: ServerDb;
    const windowMs = 1_500;

    beforeAll(async () => {
      // A second tenant database on the same Postgres: db_pool 1, a 250 ms queue target and
      // a 1.5 s error window (30 buckets of 50 ms) so the trip and the recovery are quick.
      small = await startDatabase({
        databaseUrl: db.connectionString(),
        dbPool: 1,
        subsPoolSize: 1,
        queueTargetMs: 250,
        authErrorWindowMs: windowMs,
        slowPolicyMs: 100,
      });
    });

    afterAll(async () => {
      await small?.stop();
      await db.setSlowPolicyMs(0);
    });

    it('refuses checks beyond pool ÷ check time with increase_connection_pool, then recovers', async () => {
      // 12 concurrent 100 ms checks on one connection with a 250 ms queue target: the first
      // few are served, the rest time out in the queue.
      const results = await Promise.allSettled(
        Array.from({ length: 12 }, (_, i) =>
          small.authorizeRead(ctx('authenticated', `slow-${i}`), { presence: true }),
        ),
      );
      const ok = results.filter((r) => r.status === 'fulfilled');
      const refused = results.filter(
        (r) =>
          r.status === 'rejected' &&
          r.reason instanceof AuthorizationError &&
          r.reason.code === 'increase_connection_pool',
      );
      expect(ok.length).toBeGreaterThanOrEqual(1);
      expect(ok.length).toBeLessThan(12);
      expect(ok.length + refused.length).toBe(12);
      for (const r of ok)
        expect((r as PromiseFulfilledResult<unknown>).value).toEqual({
          broadcast: true,
          presence: true,
        });
      expect(small.stats().authErrors).toBeGreaterThanOrEqual(1);

      // Once the window's tick has seen the errors, every check short-circuits — even a
      // cheap one on an allowed topic with the pool idle.
      const tripped = await eventually(async () => {
        const r = await small
          .authorizeRead(ctx('authenticated', 'room-1'), { presence: false })
          .catch((e: unknown) => e);
        return r instanceof AuthorizationError && r.code === 'increase_connection_pool'
          ? r
          : undefined;
      }, 2_000);
      expect(tripped.code).toBe('increase_connection_pool');
      const write = await small
        .authorizeWrite(ctx('authenticated', 'room-1'), 'broadcast')
        .catch((e: unknown) => e);
      expect((write as AuthorizationError).code).toBe('increase_connection_pool');
      expect(small.stats().authPoolWaiting).toBe(0);

      // After the window has cooled the pool serves again.
      await sleep(windowMs);
      const recovered = await eventually(
        () =>
          small
            .authorizeRead(ctx('authenticated', 'room-1'), { presence: false })
            .catch(() => undefined),
        windowMs * 3,
        50,
      );
      expect(recovered).toEqual({ broadcast: true, presence: false });
      expect(small.stats().authErrors).toBe(0);
    });

    it('serves checks below the ceiling without refusals', async () => {
      await eventually(() => (small.stats().authErrors === 0 ? true : undefined), windowMs * 3, 50);
      // Sequential slow checks never queue: no refusal whatever their number.
      for (let i = 0; i < 5; i++) {
        expect(await small.authorizeWrite(ctx('authenticated', `slow-${i}`), 'broadcast')).toBe(
          true,
        );
      }
      expect(small.stats().authErrors).toBe(0);
    });
  });
});
