/**
 * Tokens rtcap mints are renewed on open channels before they expire (`access_token` push,
 * PROTOCOL §3.4), as realtime-js does; against a server that closes a channel when its token
 * expires. Known answer: with 4 s tokens over a 9 s step, the server verifies renewals and
 * closes no channel; the control, a fixed token that cannot be renewed, is closed by the server.
 */
import { SignJWT } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { runBenchmark } from '../../src/run/runner.js';
import { DEV_JWT_SECRET } from '../../src/builtin/config.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { profileFrom } from '../support/profiles.js';
import { serverCounters } from '../support/server-metrics.js';
import { tempDir } from '../support/temp-dir.js';

const quiet = () => undefined;
const out = () => tempDir('rtcap-token-');

let srv: RunningServer | null = null;
afterEach(async () => {
  await srv?.close();
  srv = null;
});

function profile(url: string, auth: Record<string, unknown>) {
  return profileFrom({
    name: 'token-refresh',
    scenario: 'broadcast-public',
    target: { url, vsn: '2.0.0', auth },
    load: {
      join_rate: 200,
      drain: '2s',
      steps: [{ connections: 10, send_rate: 2, duration: '9s' }],
    },
  });
}

describe('token renewal on open channels', () => {
  it('renews minted tokens before they expire: the server closes no channel', async () => {
    srv = await startServer({ port: 0, log: quiet });
    const p = profile(srv.url, { jwt_secret: DEV_JWT_SECRET, token_ttl: '4s' });
    const { result, exitCode } = await runBenchmark({
      profile: p,
      profilePath: null,
      redactedProfile: {},
      outDir: out(),
      log: quiet,
    });
    const s = result.steps[0];
    expect(exitCode, result.abort_reason ?? '').toBe(0);
    expect(s.connections).toMatchObject({ joined: 10, disconnected: 0 });
    expect(s.messages.lost).toBe(0);
    const server = await serverCounters(srv.port);
    expect(server.realtime_channel_shutdowns_total).toBe(0);
    // Every channel lived > 9 s on 4 s tokens: each was renewed at least twice.
    expect(server.realtime_access_token_refreshes_total).toBeGreaterThanOrEqual(20);
  }, 60_000);

  it('control: a fixed token cannot be renewed, and the server closes its channels when it expires', async () => {
    srv = await startServer({ port: 0, log: quiet });
    const nowS = Math.floor(Date.now() / 1000);
    const apikey = await new SignJWT({ role: 'anon' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt(nowS)
      .setExpirationTime(nowS + 5)
      .sign(new TextEncoder().encode(DEV_JWT_SECRET));
    const p = profile(srv.url, { apikey });
    const { result } = await runBenchmark({
      profile: p,
      profilePath: null,
      redactedProfile: {},
      outDir: out(),
      log: quiet,
    });
    const server = await serverCounters(srv.port);
    expect(server.realtime_access_token_refreshes_total).toBe(0);
    expect(server.realtime_channel_shutdowns_total).toBe(10);
    expect(result.steps[0].connections.disconnected).toBe(10);
  }, 60_000);
});
