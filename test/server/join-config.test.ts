import { describe, expect, it } from 'vitest';
import { bindingId, flexibleBoolean, parseJoinPayload } from '../../src/server/join-config.js';

describe('parseJoinPayload (§3.1)', () => {
  it('reads the Supabase config with flexible booleans and defaults', () => {
    const c = parseJoinPayload(
      {
        config: {
          broadcast: { self: 'TRUE', ack: true },
          presence: { key: 'u1', enabled: 'false' },
          private: 'true',
        },
        access_token: 'tok',
      },
      'room',
    );
    expect(c).toMatchObject({
      self: true,
      ack: true,
      presenceKey: 'u1',
      presenceEnabled: false,
      isPrivate: true,
      accessToken: 'tok',
      newApi: true,
    });
  });

  it('survives invalid shapes field by field', () => {
    const c = parseJoinPayload(
      { config: { broadcast: 'nope', presence: [1], postgres_changes: 'x' } },
      'room',
    );
    expect(c).toMatchObject({
      self: false,
      ack: false,
      presenceKey: null,
      isPrivate: false,
      postgresChanges: [],
    });
    expect(parseJoinPayload(null, 'room').newApi).toBe(false);
  });

  it('takes user_token when access_token is absent', () => {
    expect(parseJoinPayload({ user_token: 'u' }, 'r').accessToken).toBe('u');
  });

  it('normalises postgres_changes params but echoes the raw map', () => {
    const raw = { event: 'insert', table: 'messages', filter: 'room_id=eq.7' };
    const [p] = parseJoinPayload({ config: { postgres_changes: [raw] } }, 'r').postgresChanges;
    expect(p).toEqual({
      raw,
      event: 'INSERT',
      schema: 'public',
      table: 'messages',
      filter: 'room_id=eq.7',
    });
    expect(
      parseJoinPayload({ config: { postgres_changes: [{ event: 'TRUNCATE' }] } }, 'r')
        .postgresChanges[0],
    ).toMatchObject({ event: '*', table: '*' });
  });

  it('parses old-API topics with a colon, and leaves plain room names alone', () => {
    expect(parseJoinPayload({}, 'public:messages:id=eq.1').postgresChanges[0]).toMatchObject({
      schema: 'public',
      table: 'messages',
      filter: 'id=eq.1',
    });
    expect(parseJoinPayload({}, 'room1').postgresChanges).toEqual([]);
  });
});

describe('bindingId (§3.2)', () => {
  it('is stable, independent of key order, and in [0, 2^27)', () => {
    const a = bindingId({ event: '*', schema: 'public', table: 'x' });
    const b = bindingId({ table: 'x', schema: 'public', event: '*' });
    expect(a).toBe(b);
    expect(a).toBeGreaterThanOrEqual(0);
    expect(a).toBeLessThan(2 ** 27);
    expect(bindingId({ event: '*', schema: 'public', table: 'y' })).not.toBe(a);
  });

  it('flexibleBoolean accepts only true and "true" in any case', () => {
    expect([true, 'True', 'TRUE', 'false', 1, null, 'yes'].map(flexibleBoolean)).toEqual([
      true,
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
  });
});
