/**
 * Tenant routing by Host (docs/PROTOCOL.md §1.3): a server that knows only tenant `realtime-dev`
 * refuses a plain 127.0.0.1 connection with 404 `Tenant not found`, and rtcap reaches it
 * with `target.host`, its apikey sent in the x-api-key header.
 */
import { SignJWT } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { runBenchmark } from '../../src/run/runner.js';
import { EXIT } from '../../src/util/exit-codes.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { profileFrom } from '../support/profiles.js';
import { tempDir } from '../support/temp-dir.js';

const SECRET = 'tenant-secret-with-at-least-32-characters-in-it';
let srv: RunningServer | null = null;
afterEach(async () => {
  await srv?.close();
  srv = null;
});

async function token(): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ role: 'anon' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt(now)
    .setExpirationTime(now + 600)
    .sign(new TextEncoder().encode(SECRET));
}

describe('Host routing', () => {
  it('reaches a named tenant through target.host and is refused without it', async () => {
    srv = await startServer({
      port: 0,
      database: false,
      config: { tenants: [{ id: 'realtime-dev', jwt_secret: SECRET }] },
      timings: { connectErrorBackoffMs: 0 },
      log: () => undefined,
    });
    const apikey = await token();
    const base = {
      name: 'host',
      scenario: 'broadcast-public',
      load: {
        join_rate: 200,
        drain: '2s',
        steps: [{ connections: 5, send_rate: 5, duration: '1s' }],
      },
    };

    const refused = await runBenchmark({
      profile: profileFrom({
        ...base,
        target: { url: srv.url, auth: { apikey, apikey_in: 'header' } },
      }),
      profilePath: null,
      redactedProfile: {},
      outDir: tempDir('rtcap-host-'),
      log: () => undefined,
    });
    expect(refused.exitCode).toBe(EXIT.aborted);
    expect(refused.result.abort_reason).toContain(
      'upgrade refused: HTTP 404 {"error":"Tenant not found"}',
    );

    const routed = await runBenchmark({
      profile: profileFrom({
        ...base,
        target: {
          url: srv.url,
          host: 'realtime-dev.localhost',
          auth: { apikey, apikey_in: 'header' },
        },
      }),
      profilePath: null,
      redactedProfile: {},
      outDir: tempDir('rtcap-host-'),
      log: () => undefined,
    });
    expect(routed.exitCode).toBe(0);
    expect(routed.result.steps[0].connections.joined).toBe(5);
    expect(routed.result.steps[0].delivery_rate).toBe(1);
    // The token never reaches the result.
    expect(JSON.stringify(routed.result)).not.toContain(apikey);
  });
});
