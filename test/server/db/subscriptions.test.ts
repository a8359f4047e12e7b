import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SubscriptionError,
  TOO_MANY_DB_TIMEOUTS,
  startDatabase,
} from '../../../src/server/db/index.js';
import type { ServerDb } from '../../../src/server/db/server-db.js';
import { eventually, sleep } from './support.js';

const claims = { role: 'authenticated', exp: 4_000_000_000, sub: 'u1' };

async function subscribeError(
  db: ServerDb,
  binding: { event: string; schema: string; table: string; filter?: string },
): Promise<SubscriptionError> {
  const e = await db.subscribe({ subscriptionId: randomUUID(), claims, binding }).then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(SubscriptionError);
  return e as SubscriptionError;
}

describe('postgres_changes subscriptions (docs/PROTOCOL.md §7.1, §3.3)', () => {
  let db: ServerDb;
  let sql: pg.Client;

  beforeAll(async () => {
    db = await startDatabase({ dbPool: 1, subsPoolSize: 1 });
    sql = new pg.Client({ connectionString: db.connectionString() });
    await sql.connect();
  });

  afterAll(async () => {
    await sql?.end();
    await db?.stop();
  });

  it('writes a realtime.subscription row per binding and deletes it on unsubscribe', async () => {
    const id = randomUUID();
    await db.subscribe({
      subscriptionId: id,
      claims,
      binding: {
        event: 'insert',
        schema: 'public',
        table: 'bench_messages',
        filter: 'room_id=in.(1,2)',
      },
    });
    const r = await sql.query(
      `select entity::text, claims_role::text, action_filter, claims ->> 'sub' as sub,
              (filters[1]).column_name, (filters[1]).op::text, (filters[1]).value
         from realtime.subscription where subscription_id = $1`,
      [id],
    );
    expect(r.rows).toEqual([
      {
        entity: 'bench_messages',
        claims_role: 'authenticated',
        action_filter: 'INSERT',
        sub: 'u1',
        column_name: 'room_id',
        op: 'in',
        value: '{1,2}',
      },
    ]);
    expect(db.stats().subscriptions).toBe(1);
    await db.unsubscribe([id]);
    expect(
      (
        await sql.query(
          'select count(*)::int as n from realtime.subscription where subscription_id = $1',
          [id],
        )
      ).rows[0].n,
    ).toBe(0);
    expect(db.stats().subscriptions).toBe(0);
  });

  it('expands a wildcard table to every table of the publication', async () => {
    const id = randomUUID();
    await db.subscribe({
      subscriptionId: id,
      claims,
      binding: { event: '*', schema: 'public', table: '*' },
    });
    const r = await sql.query(
      `select entity::text as t from realtime.subscription where subscription_id = $1 order by 1`,
      [id],
    );
    expect(r.rows.map((x) => x.t)).toEqual(['bench_messages', 'bench_open_messages']);
    await db.unsubscribe([id]);
  });

  it('refuses malformed filters with the exact system-message text, not retryable', async () => {
    const bad = await subscribeError(db, {
      event: '*',
      schema: 'public',
      table: 'bench_messages',
      filter: 'room_id=foo.1',
    });
    expect(bad.message).toBe('Error parsing `filter` params: ["foo", "1"]');
    expect(bad.retryable).toBe(false);
    expect(
      (
        await subscribeError(db, {
          event: '*',
          schema: 'public',
          table: 'bench_messages',
          filter: 'undefined',
        })
      ).message,
    ).toBe('Error parsing `filter` params: ["undefined"]');
    expect(
      (
        await subscribeError(db, {
          event: '*',
          schema: 'public',
          table: 'bench_messages',
          filter: 'room_id=in.1',
        })
      ).message,
    ).toBe('Error parsing `filter` params: `in` filter value must be wrapped by parentheses');
  });

  it('refuses an unknown column and a value of the wrong type as the database trigger does', async () => {
    const col = await subscribeError(db, {
      event: '*',
      schema: 'public',
      table: 'bench_messages',
      filter: 'nope=eq.1',
    });
    expect(col.message).toBe(
      'Unable to subscribe to changes with given parameters. An exception happened so please check your connect parameters: ' +
        '[event: *, schema: public, table: bench_messages, filters: [{"nope", "eq", "1", false}], select: nil]. ' +
        'Exception: ERROR P0001 (raise_exception) invalid column for filter nope',
    );
    expect(col.retryable).toBe(false);
    const typed = await subscribeError(db, {
      event: 'UPDATE',
      schema: 'public',
      table: 'bench_messages',
      filter: 'room_id=eq.abc',
    });
    expect(typed.message).toBe(
      'Unable to subscribe to changes with given parameters. An exception happened so please check your connect parameters: ' +
        '[event: UPDATE, schema: public, table: bench_messages, filters: [{"room_id", "eq", "abc", false}], select: nil]. ' +
        'Exception: ERROR 22P02 (invalid_text_representation) invalid input syntax for type integer: "abc"',
    );
    const many = Array.from({ length: 101 }, (_, i) => i).join(',');
    const tooMany = await subscribeError(db, {
      event: '*',
      schema: 'public',
      table: 'bench_messages',
      filter: `room_id=in.(${many})`,
    });
    expect(tooMany.message).toMatch(
      /Exception: ERROR P0001 \(raise_exception\) too many values for `in` filter. Maximum 100$/,
    );
  });

  it('validates the 2026 operators in the database trigger', async () => {
    const isBad = await subscribeError(db, {
      event: '*',
      schema: 'public',
      table: 'bench_messages',
      filter: 'body=is.maybe',
    });
    expect(isBad.message).toMatch(
      /Exception: ERROR P0001 \(raise_exception\) invalid value for is filter: must be null, true, false, or unknown$/,
    );
    const isInt = await subscribeError(db, {
      event: '*',
      schema: 'public',
      table: 'bench_messages',
      filter: 'room_id=is.true',
    });
    expect(isInt.message).toMatch(/is true filter requires a boolean column, got integer$/);
    const likeInt = await subscribeError(db, {
      event: '*',
      schema: 'public',
      table: 'bench_messages',
      filter: 'room_id=like.1%',
    });
    expect(likeInt.message).toMatch(
      /operator like requires a text-compatible column type, got integer$/,
    );
    const badRegex = await subscribeError(db, {
      event: '*',
      schema: 'public',
      table: 'bench_messages',
      filter: 'body=match.(',
    });
    expect(badRegex.message).toMatch(/invalid regular expression for match filter: /);
    for (const filter of [
      'body=like.a%',
      'body=ilike.A%',
      'body=is.null',
      'body=match.^a',
      'room_id=isdistinct.3',
      'room_id=not.eq.3',
    ]) {
      const id = randomUUID();
      await db.subscribe({
        subscriptionId: id,
        claims,
        binding: { event: '*', schema: 'public', table: 'bench_messages', filter },
      });
      await db.unsubscribe([id]);
    }
  });

  it('refuses a table outside the publication', async () => {
    const e = await subscribeError(db, { event: '*', schema: 'public', table: 'not_published' });
    expect(e.message).toBe(
      'Unable to subscribe to changes with given parameters. Please check Realtime is enabled for the given connect parameters: ' +
        '[event: *, schema: public, table: not_published, filters: [], select: nil]',
    );
    expect(e.retryable).toBe(false);
    expect(db.stats().subsErrors).toBe(0);
  });

  it('trips on subscription-pool timeouts: {:error, "Too many database timeouts"}, retryable, then recovers', async () => {
    const windowMs = 1_500;
    const small = await startDatabase({
      databaseUrl: db.connectionString(),
      dbPool: 1,
      subsPoolSize: 1,
      queueTargetMs: 1,
      subsErrorWindowMs: windowMs,
    });
    try {
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, () =>
          small.subscribe({
            subscriptionId: randomUUID(),
            claims,
            binding: { event: '*', schema: 'public', table: 'bench_messages' },
          }),
        ),
      );
      const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(refused.length).toBeGreaterThan(0);
      for (const r of refused) {
        expect(r.reason).toBeInstanceOf(SubscriptionError);
        expect(r.reason.message).toBe(TOO_MANY_DB_TIMEOUTS);
        expect(r.reason.message).toBe('{:error, "Too many database timeouts"}');
        expect(r.reason.retryable).toBe(true);
      }
      expect(small.stats().subsErrors).toBeGreaterThan(0);
      // Tripped: even an uncontended subscribe is refused until the window cools.
      await eventually(async () => {
        const e = await small
          .subscribe({
            subscriptionId: randomUUID(),
            claims,
            binding: { event: '*', schema: 'public', table: 'bench_messages' },
          })
          .then(
            () => null,
            (err: unknown) => err,
          );
        return e instanceof SubscriptionError && e.message === TOO_MANY_DB_TIMEOUTS
          ? true
          : undefined;
      }, 2_000);
      await sleep(windowMs);
      await eventually(
        () =>
          small
            .subscribe({
              subscriptionId: randomUUID(),
              claims,
              binding: { event: '*', schema: 'public', table: 'bench_messages' },
            })
            .then(
              () => true as const,
              () => undefined,
            ),
        windowMs * 3,
        50,
      );
    } finally {
      await small.stop();
    }
  });
});
