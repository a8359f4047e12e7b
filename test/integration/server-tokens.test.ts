/**
 * Tokens on open channels (docs/PROTOCOL.md §1.5 last paragraph, §3.4, §3.5): the expiry re-check
 * closes a channel whose token ran out; `access_token` refreshes it without a reply.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/server.js';
import { RawClient, serve, token } from '../server/helpers.js';

let srv: RunningServer;
beforeAll(async () => {
  srv = await serve();
});
afterAll(() => srv.close());

const nowS = () => Math.floor(Date.now() / 1000);
const systems = (c: RawClient) =>
  c.frames
    .filter((f) => Array.isArray(f.json) && f.json[3] === 'system')
    .map((f) => (f.json as unknown[])[4]);

async function join(topic: string, accessToken: string): Promise<RawClient> {
  const c = await RawClient.open(srv.port, { vsn: '2.0.0' });
  c.send(['1', '1', topic, 'phx_join', { config: {}, access_token: accessToken }]);
  expect((await c.v2('phx_reply', '1'))[4]).toMatchObject({ status: 'ok' });
  return c;
}

describe('token expiry on an open channel', () => {
  it('pushes a system error and closes the channel when the token expires', async () => {
    const c = await join('realtime:exp', await token({ exp: nowS() + 2 }));
    const sys = (await c.v2('system', null, 5000))[4] as { message: string };
    expect(sys).toMatchObject({ extension: 'system', status: 'error', channel: 'exp' });
    expect(sys.message).toMatch(/^Token has expired \d+ seconds ago$/);
    expect(await c.v2('phx_close')).toEqual(['1', '1', 'realtime:exp', 'phx_close', {}]);
    c.close();
  });

  it('keeps the channel open past the old expiry after an access_token refresh, with no reply', async () => {
    const c = await join('realtime:refresh', await token({ exp: nowS() + 2 }));
    c.send([
      '1',
      '2',
      'realtime:refresh',
      'access_token',
      { access_token: await token({ exp: nowS() + 3600 }) },
    ]);
    await new Promise((r) => setTimeout(r, 3200));
    c.send([null, 'hb', 'phoenix', 'heartbeat', {}]);
    await c.v2('phx_reply', 'hb');
    expect(systems(c)).toEqual([]);
    expect(c.frames.some((f) => Array.isArray(f.json) && f.json[1] === '2')).toBe(false);
    c.close();
  });

  it('closes the channel on a refresh with an expired or malformed token, and ignores sb_ keys', async () => {
    const a = await join('realtime:r1', await token());
    a.send(['1', '2', 'realtime:r1', 'access_token', { access_token: 'sb_secret_123' }]);
    a.send([
      '1',
      '3',
      'realtime:r1',
      'access_token',
      { access_token: await token({ exp: nowS() - 20 }) },
    ]);
    const sys = (await a.v2('system'))[4] as { message: string };
    expect(sys.message).toMatch(/^Token has expired (2\d) seconds ago$/);
    await a.v2('phx_close');
    a.close();
    const b = await join('realtime:r2', await token());
    b.send(['1', '2', 'realtime:r2', 'access_token', { access_token: 'garbage' }]);
    expect((await b.v2('system'))[4]).toEqual({
      extension: 'system',
      status: 'error',
      message: 'The token provided is not a valid JWT',
      channel: 'r2',
    });
    await b.v2('phx_close');
    b.close();
  });
});
