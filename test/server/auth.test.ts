import { describe, expect, it } from 'vitest';
import {
  cleanToken,
  connectRefusal,
  joinRefusal,
  shutdownMessage,
  TokenVerifier,
} from '../../src/server/auth.js';
import { DEV_JWT_SECRET } from '../../src/builtin/config.js';
import { token } from './helpers.js';

const v = new TokenVerifier(DEV_JWT_SECRET);

describe('TokenVerifier (§1.4)', () => {
  it('accepts a valid HS256 token with role and exp', async () => {
    const r = await v.verify(await token({ sub: 'u1' }));
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.claims).toMatchObject({ role: 'anon', sub: 'u1' });
  });

  it('checks expiry on every use, also for a cached token', async () => {
    const t = await token({ exp: Math.floor(Date.now() / 1000) + 5 });
    expect((await v.verify(t)).ok).toBe(true);
    const later = await v.verify(t, Date.now() + 12_000);
    expect(later).toMatchObject({ ok: false, kind: 'expired' });
    if (!later.ok && later.kind === 'expired') expect(later.secondsAgo).toBeGreaterThanOrEqual(6);
  });

  it('classifies failures in Realtime order', async () => {
    expect(await v.verify('abc')).toEqual({ ok: false, kind: 'malformed' });
    expect(await v.verify(await token({}, { typ: null }))).toEqual({ ok: false, kind: 'signer' });
    expect(await v.verify(await token({}, { secret: 'x'.repeat(40) }))).toEqual({
      ok: false,
      kind: 'signature',
    });
    expect(await v.verify(await token({ role: undefined }))).toEqual({
      ok: false,
      kind: 'missing_claims',
    });
    expect(await v.verify(await token({ exp: undefined }))).toEqual({
      ok: false,
      kind: 'missing_claims',
    });
    // A role that is not a string cannot name a Postgres role: refused like a missing one.
    for (const role of [{ a: 1 }, 7, null, ['anon']])
      expect(await v.verify(await token({ role }))).toEqual({ ok: false, kind: 'missing_claims' });
    // Expiry is validated before the required-claims check.
    const r = await v.verify(await token({ role: undefined, exp: 1000 }));
    expect(r).toMatchObject({ ok: false, kind: 'expired' });
    expect(await v.verify(await token({ exp: 'soon' }))).toEqual({ ok: false, kind: 'other' });
  });

  it('rounds a decimal exp', async () => {
    const exp = Math.floor(Date.now() / 1000) + 100.4;
    const r = await v.verify(await token({ exp }));
    expect(r.ok && r.expS).toBe(Math.round(exp));
  });

  it('URL-decodes and strips whitespace', async () => {
    const t = await token();
    expect(cleanToken(` ${t.slice(0, 10)}\n${t.slice(10)} `)).toBe(t);
    expect((await v.verify(encodeURIComponent(t))).ok).toBe(true);
  });
});

describe('refusal texts', () => {
  it('maps to HTTP (§1.5), join reasons (§3.2) and shutdown messages (§3.5)', () => {
    expect(connectRefusal({ kind: 'expired', secondsAgo: 3 })).toEqual({
      status: 401,
      error: 'Token has expired',
    });
    expect(connectRefusal({ kind: 'other' })).toEqual({
      status: 500,
      error: 'Error connecting to Realtime',
    });
    expect(joinRefusal({ kind: 'expired', secondsAgo: 3 })).toBe(
      'InvalidJWTToken: Token has expired 3 seconds ago',
    );
    expect(joinRefusal({ kind: 'signature' })).toBe(
      'JwtSignatureError: Failed to validate JWT signature',
    );
    expect(shutdownMessage({ kind: 'expired', secondsAgo: 9 })).toBe(
      'Token has expired 9 seconds ago',
    );
    expect(shutdownMessage({ kind: 'missing_claims' })).toBe(
      'Fields `role` and `exp` are required in JWT',
    );
  });
});
