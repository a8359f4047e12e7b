import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TokenConfig } from '../../src/client/auth.js';
import { jwtExpiryMs } from '../../src/generator/token-refresh.js';
import { TokenRenewal, type TokenHolder } from '../../src/generator/token-renewal.js';
import { FakeConnection } from './support/fake-connection.js';

const MINTED: TokenConfig = {
  jwtSecret: 'a-secret-of-32-characters-or-more!',
  role: 'anon',
  ttlMs: 60_000,
  apikeyIn: 'query',
};

afterEach(() => vi.useRealTimers());

async function settled(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

describe('token renewal', () => {
  it('renews a minted token at half its lifetime by an access_token push', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(1_000_000_000_000);
    const r = new TokenRenewal<FakeConnection>(MINTED, () => ({}));
    const c = new FakeConnection(0);
    const [token] = await r.tokensFor(0, false);
    const m: TokenHolder = { topic: 'realtime:t', token, userToken: null, leftAtMs: Infinity };
    r.track(c, m);
    expect(r.tracked).toBe(1);
    const expMs = jwtExpiryMs(token!)!;
    const errors: Error[] = [];
    r.renewDue(
      expMs - 30_001,
      () => m,
      () => false,
      (e) => errors.push(e),
    );
    await settled();
    expect(c.pushes).toEqual([]);
    // Half way (and the shared token's source past its own half life, so it mints anew): a
    // new token is pushed on the channel.
    vi.setSystemTime(expMs - 30_000 + 1);
    r.renewDue(
      expMs - 30_000,
      () => m,
      () => false,
      (e) => errors.push(e),
    );
    await vi.waitFor(() => expect(c.pushes).toHaveLength(1));
    const fresh = (c.pushes[0].payload as { access_token: string }).access_token;
    expect(c.pushes[0]).toMatchObject({ topic: 'realtime:t', event: 'access_token' });
    expect(fresh).not.toBe(token);
    expect(m.token).toBe(fresh);
    expect(jwtExpiryMs(fresh)).toBe(expMs + 30_000);
    // Tracked again with the new token's expiry.
    expect(r.tracked).toBe(1);
    expect(errors).toEqual([]);
  });

  it('asks again later when the source has nothing newer yet', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(1_000_000_000_000);
    const r = new TokenRenewal<FakeConnection>(MINTED, () => ({}));
    const c = new FakeConnection(0);
    const [token] = await r.tokensFor(0, false);
    const m: TokenHolder = { topic: 't', token, userToken: null, leftAtMs: Infinity };
    r.track(c, m);
    const dueMs = jwtExpiryMs(token!)! - 30_000;
    // The shared token is renewed only once it is itself half way to expiry: with the clock
    // still at its minting, the source hands out the same token.
    r.renewDue(
      dueMs,
      () => m,
      () => false,
      () => undefined,
    );
    await settled();
    expect(c.pushes).toEqual([]);
    // Still tracked: it is tried again a moment later (REFRESH_RETRY_MS).
    expect(r.tracked).toBe(1);
  });

  it('renews nothing for a channel that left, a stopped process, or a fixed apikey', async () => {
    const r = new TokenRenewal<FakeConnection>(MINTED, () => ({}));
    const c = new FakeConnection(0);
    const [token] = await r.tokensFor(0, false);
    const left: TokenHolder = { topic: 't', token, userToken: null, leftAtMs: 5 };
    r.track(c, left);
    r.renewDue(
      Number.MAX_SAFE_INTEGER,
      () => left,
      () => false,
      () => undefined,
    );
    await settled();
    expect(c.pushes).toEqual([]);
    r.track(c, left);
    r.untrack(c);
    expect(r.tracked).toBe(0);

    const fixed = new TokenRenewal<FakeConnection>({ ...MINTED, apikey: 'anon-key' }, () => ({}));
    expect(await fixed.tokensFor(0, true)).toEqual(['anon-key', expect.any(String)]);
    fixed.track(c, { topic: 't', token: 'anon-key', userToken: null, leftAtMs: Infinity });
    expect(fixed.tracked).toBe(0);
  });

  it('mints a per-user token with the plan claims only when the channel has them', async () => {
    const r = new TokenRenewal<FakeConnection>(MINTED, (i) => ({ sub: `user-${i}` }));
    const [, none] = await r.tokensFor(3, false);
    expect(none).toBeNull();
    const [, user] = await r.tokensFor(3, true);
    const body = Buffer.from(user!.split('.')[1], 'base64url').toString();
    const claims = JSON.parse(body) as Record<string, unknown>;
    expect(claims).toMatchObject({ sub: 'user-3', role: 'authenticated' });
  });
});
