/**
 * The built-in server on real sockets, frame by frame: golden replies for docs/PROTOCOL.md §2–§4
 * and the refusals of §1.5 / §3.2.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeUserBroadcastPush } from '../../src/protocol/frame-encode.js';
import type { RunningServer } from '../../src/server/server.js';
import { RawClient, refusedUpgrade, serve, token, until } from '../server/helpers.js';

let srv: RunningServer;
beforeAll(async () => {
  srv = await serve({ config: { max_payload_size_in_kb: 1 } });
});
afterAll(() => srv.close());

const joinV2 = (c: RawClient, topic: string, config: Record<string, unknown> = {}, ref = '1') =>
  c.send([
    ref,
    ref,
    topic,
    'phx_join',
    {
      config: {
        broadcast: { self: false, ack: false },
        presence: { key: '' },
        postgres_changes: [],
        ...config,
      },
    },
  ]);

describe('heartbeat and join', () => {
  it('answers heartbeats with golden replies on v1 and v2', async () => {
    const v2 = await RawClient.open(srv.port, { vsn: '2.0.0' });
    v2.send([null, '5', 'phoenix', 'heartbeat', {}]);
    expect((await v2.next()).text).toBe(
      '[null,"5","phoenix","phx_reply",{"status":"ok","response":{}}]',
    );
    const v1 = await RawClient.open(srv.port);
    v1.send({ topic: 'phoenix', event: 'heartbeat', payload: {}, ref: '7' });
    expect((await v1.next()).text).toBe(
      '{"topic":"phoenix","event":"phx_reply","payload":{"status":"ok","response":{}},"ref":"7"}',
    );
    v1.close();
    v2.close();
  });

  it('replies to a Supabase join with postgres_changes [] (v2 and v1 golden frames)', async () => {
    const v2 = await RawClient.open(srv.port, { vsn: '2.0.0' });
    joinV2(v2, 'realtime:room1');
    expect((await v2.next()).text).toBe(
      '["1","1","realtime:room1","phx_reply",{"status":"ok","response":{"postgres_changes":[]}}]',
    );
    const v1 = await RawClient.open(srv.port, { vsn: '1.0.0' });
    v1.send({ topic: 'realtime:room1', event: 'phx_join', payload: {}, ref: '1', join_ref: '1' });
    expect((await v1.next()).text).toBe(
      '{"topic":"realtime:room1","event":"phx_reply","payload":{"status":"ok","response":{"postgres_changes":[]}},"ref":"1"}',
    );
    v1.close();
    v2.close();
  });

  it('refuses topics outside realtime:* and an empty subtopic', async () => {
    const c = await RawClient.open(srv.port, { vsn: '2.0.0' });
    c.send(['1', '1', 'room:lobby', 'phx_join', {}]);
    expect((await c.v2('phx_reply', '1'))[4]).toEqual({
      status: 'error',
      response: { reason: 'unmatched topic' },
    });
    c.send(['2', '2', 'realtime:', 'phx_join', {}]);
    expect((await c.v2('phx_reply', '2'))[4]).toEqual({
      status: 'error',
      response: { reason: 'TopicNameRequired: You must provide a topic name' },
    });
    c.close();
  });

  it('answers messages to unjoined topics with unmatched topic, and leaving them with ok', async () => {
    const c = await RawClient.open(srv.port, { vsn: '2.0.0' });
    c.send(['9', '3', 'realtime:nowhere', 'broadcast', { event: 'x', payload: {} }]);
    expect(await c.v2('phx_reply', '3')).toEqual([
      '9',
      '3',
      'realtime:nowhere',
      'phx_reply',
      { status: 'error', response: { reason: 'unmatched topic' } },
    ]);
    c.send(['9', '4', 'realtime:nowhere', 'phx_leave', {}]);
    expect((await c.v2('phx_reply', '4'))[4]).toEqual({ status: 'ok', response: {} });
    c.close();
  });

  it('also serves the gateway path /realtime/v1/websocket', async () => {
    const c = await RawClient.open(srv.port, { vsn: '2.0.0', path: '/realtime/v1/websocket' });
    joinV2(c, 'realtime:gw');
    expect((await c.v2('phx_reply', '1'))[4]).toEqual({
      status: 'ok',
      response: { postgres_changes: [] },
    });
    c.close();
  });
});

describe('broadcast', () => {
  it('fans out v2 JSON broadcasts, honouring self and ack', async () => {
    const a = await RawClient.open(srv.port, { vsn: '2.0.0' });
    const b = await RawClient.open(srv.port, { vsn: '2.0.0' });
    const s = await RawClient.open(srv.port, { vsn: '2.0.0' });
    joinV2(a, 'realtime:b1');
    joinV2(b, 'realtime:b1', { broadcast: { self: true, ack: true } });
    joinV2(s, 'realtime:b1', { broadcast: { self: false, ack: true } });
    await Promise.all([a.v2('phx_reply', '1'), b.v2('phx_reply', '1'), s.v2('phx_reply', '1')]);
    s.send([
      '1',
      '2',
      'realtime:b1',
      'broadcast',
      { type: 'broadcast', event: 'cursor', payload: { x: 1 } },
    ]);
    expect(await s.v2('phx_reply', '2')).toEqual([
      '1',
      '2',
      'realtime:b1',
      'phx_reply',
      { status: 'ok', response: {} },
    ]);
    const got = await a.next((f) => Array.isArray(f.json) && f.json[3] === 'broadcast');
    expect(got.text).toBe(
      '[null,null,"realtime:b1","broadcast",{"type":"broadcast","event":"cursor","payload":{"x":1}}]',
    );
    await b.v2('broadcast');
    // b has self: true, so its own message comes back; s (self: false) never sees its own.
    b.send([
      '1',
      '3',
      'realtime:b1',
      'broadcast',
      { type: 'broadcast', event: 'own', payload: {} },
    ]);
    await b.v2('phx_reply', '3');
    await until(
      () => b.frames.filter((f) => Array.isArray(f.json) && f.json[3] === 'broadcast').length === 2,
    );
    await until(
      () => a.frames.filter((f) => Array.isArray(f.json) && f.json[3] === 'broadcast').length === 2,
    );
    expect(
      s.frames.filter(
        (f) =>
          Array.isArray(f.json) &&
          (f.json as unknown[])[3] === 'broadcast' &&
          ((f.json as unknown[])[4] as { event: string }).event === 'cursor',
      ),
    ).toHaveLength(0);
    for (const c of [a, b, s]) c.close();
  });

  it('delivers v1 objects to v1 sockets and v2 arrays to v2 sockets from the same message', async () => {
    const v1 = await RawClient.open(srv.port);
    const v2 = await RawClient.open(srv.port, { vsn: '2.0.0' });
    v1.send({
      topic: 'realtime:mix',
      event: 'phx_join',
      payload: { config: {} },
      ref: '1',
      join_ref: '1',
    });
    joinV2(v2, 'realtime:mix');
    await v1.v1('phx_reply', '1');
    await v2.v2('phx_reply', '1');
    // k6-style v1 broadcast: no `type`, numeric ref, no join_ref (§10.3).
    v1.send({
      topic: 'realtime:mix',
      event: 'broadcast',
      payload: { event: 'new message', payload: { m: 'hi' } },
      ref: 0,
    });
    expect((await v2.next((f) => Array.isArray(f.json) && f.json[3] === 'broadcast')).text).toBe(
      '[null,null,"realtime:mix","broadcast",{"event":"new message","payload":{"m":"hi"}}]',
    );
    v2.send([
      '1',
      '2',
      'realtime:mix',
      'broadcast',
      { type: 'broadcast', event: 'e', payload: { n: 2 } },
    ]);
    expect((await v1.next((f) => (f.json as { event?: string }).event === 'broadcast')).text).toBe(
      '{"topic":"realtime:mix","event":"broadcast","payload":{"type":"broadcast","event":"e","payload":{"n":2}},"ref":null}',
    );
    v1.close();
    v2.close();
  });

  it('turns a binary kind-3 push into kind 4 for v2 and JSON for v1 (§2.3)', async () => {
    const v1 = await RawClient.open(srv.port);
    const v2 = await RawClient.open(srv.port, { vsn: '2.0.0' });
    const s = await RawClient.open(srv.port, { vsn: '2.0.0' });
    v1.send({ topic: 'realtime:k3', event: 'phx_join', payload: {}, ref: '1', join_ref: '1' });
    joinV2(v2, 'realtime:k3');
    joinV2(s, 'realtime:k3');
    await Promise.all([v1.v1('phx_reply', '1'), v2.v2('phx_reply', '1'), s.v2('phx_reply', '1')]);
    s.sendBinary(
      encodeUserBroadcastPush({
        joinRef: '1',
        ref: '2',
        topic: 'realtime:k3',
        userEvent: 'ev',
        payload: { a: 1 },
      }),
    );
    const bin = await v2.next((f) => f.bin !== null);
    const topic = Buffer.from('realtime:k3');
    expect([...bin.bin!]).toEqual([
      4,
      topic.length,
      2,
      0,
      1,
      ...topic,
      ...Buffer.from('ev'),
      ...Buffer.from('{"a":1}'),
    ]);
    expect((await v1.next((f) => (f.json as { event?: string }).event === 'broadcast')).text).toBe(
      '{"topic":"realtime:k3","event":"broadcast","payload":{"type":"broadcast","event":"ev","payload":{"a":1}},"ref":null}',
    );
    // A binary-encoded user payload reaches v2 as kind 4 and is dropped for v1.
    s.sendBinary(
      encodeUserBroadcastPush({
        joinRef: '1',
        ref: '3',
        topic: 'realtime:k3',
        userEvent: 'raw',
        payload: new Uint8Array([9, 8, 7]),
        encoding: 0,
      }),
    );
    await until(() => v2.frames.filter((f) => f.bin !== null).length === 2);
    expect([...v2.frames.filter((f) => f.bin)[1].bin!.subarray(-3)]).toEqual([9, 8, 7]);
    s.send([null, '4', 'phoenix', 'heartbeat', {}]);
    await s.v2('phx_reply', '4');
    v1.send({ topic: 'phoenix', event: 'heartbeat', payload: {}, ref: 'hb' });
    await v1.v1('phx_reply', 'hb');
    expect(
      v1.frames.filter((f) => (f.json as { event?: string }).event === 'broadcast'),
    ).toHaveLength(1);
    for (const c of [v1, v2, s]) c.close();
  });

  it('answers an oversized broadcast with payload_size_exceeded when ack is on, and drops it silently otherwise', async () => {
    const s = await RawClient.open(srv.port, { vsn: '2.0.0' });
    const r = await RawClient.open(srv.port, { vsn: '2.0.0' });
    joinV2(s, 'realtime:big', { broadcast: { ack: true } });
    joinV2(r, 'realtime:big');
    await Promise.all([s.v2('phx_reply', '1'), r.v2('phx_reply', '1')]);
    s.send([
      '1',
      '2',
      'realtime:big',
      'broadcast',
      { event: 'e', payload: { pad: 'x'.repeat(2000) } },
    ]);
    expect(await s.v2('phx_reply', '2')).toEqual([
      '1',
      '2',
      'realtime:big',
      'phx_reply',
      { status: 'error', response: 'payload_size_exceeded' },
    ]);
    s.send(['1', '3', 'realtime:big', 'broadcast', { event: 'e', payload: { pad: 'small' } }]);
    await r.v2('broadcast');
    expect(r.frames.filter((f) => Array.isArray(f.json) && f.json[3] === 'broadcast')).toHaveLength(
      1,
    );
    s.close();
    r.close();
  });
});

describe('leave, duplicate join and refs', () => {
  it('replies ok to phx_leave and then sends phx_close with ref = join_ref', async () => {
    const c = await RawClient.open(srv.port, { vsn: '2.0.0' });
    c.send(['3', '3', 'realtime:l', 'phx_join', {}]);
    await c.v2('phx_reply', '3');
    c.send(['3', '4', 'realtime:l', 'phx_leave', {}]);
    await until(() => c.frames.length >= 3);
    expect(c.frames.slice(1).map((f) => f.text)).toEqual([
      '["3","4","realtime:l","phx_reply",{"status":"ok","response":{}}]',
      '["3","3","realtime:l","phx_close",{}]',
    ]);
    c.close();
  });

  it('closes the old channel on a duplicate join, then joins again', async () => {
    const c = await RawClient.open(srv.port, { vsn: '2.0.0' });
    c.send(['1', '1', 'realtime:d', 'phx_join', {}]);
    await c.v2('phx_reply', '1');
    c.send(['2', '2', 'realtime:d', 'phx_join', {}]);
    await c.v2('phx_reply', '2');
    expect(c.frames.slice(1).map((f) => f.text)).toEqual([
      '["1","1","realtime:d","phx_close",{}]',
      '["2","2","realtime:d","phx_reply",{"status":"ok","response":{"postgres_changes":[]}}]',
    ]);
    c.close();
  });

  it('ignores a stale join_ref and accepts a missing one', async () => {
    const s = await RawClient.open(srv.port, { vsn: '2.0.0' });
    const r = await RawClient.open(srv.port, { vsn: '2.0.0' });
    s.send(['5', '5', 'realtime:refs', 'phx_join', { config: { broadcast: { ack: true } } }]);
    joinV2(r, 'realtime:refs');
    await Promise.all([s.v2('phx_reply', '5'), r.v2('phx_reply', '1')]);
    s.send(['4', '6', 'realtime:refs', 'broadcast', { event: 'stale', payload: {} }]);
    s.send([null, '7', 'realtime:refs', 'broadcast', { event: 'nil', payload: {} }]);
    expect((await s.v2('phx_reply', '7'))[0]).toBe('5');
    const got = await r.v2('broadcast');
    expect((got[4] as { event: string }).event).toBe('nil');
    expect(s.frames.some((f) => Array.isArray(f.json) && f.json[1] === '6')).toBe(false);
    s.close();
    r.close();
  });
});

describe('bad input never crashes the server', () => {
  it('drops malformed frames and keeps the socket', async () => {
    const c = await RawClient.open(srv.port, { vsn: '2.0.0' });
    c.send('not json');
    c.send('[1,2,3]');
    c.send('{"topic":"x"}');
    c.sendBinary(new Uint8Array([4, 1, 1, 0, 1, 65, 66]));
    c.sendBinary(new Uint8Array([3, 200]));
    c.sendBinary(new Uint8Array([42]));
    c.send([null, 'ok', 'phoenix', 'heartbeat', {}]);
    expect((await c.v2('phx_reply', 'ok'))[4]).toEqual({ status: 'ok', response: {} });
    expect(c.frames).toHaveLength(1);
    const v1 = await RawClient.open(srv.port);
    v1.send({ topic: 'phoenix', event: 'heartbeat', payload: {} }); // lacks ref
    v1.sendBinary(new Uint8Array([3, 0, 0, 0, 0, 0, 1]));
    v1.send({ topic: 'phoenix', event: 'heartbeat', payload: {}, ref: 'r' });
    await v1.v1('phx_reply', 'r');
    expect(v1.frames).toHaveLength(1);
    c.close();
    v1.close();
  });

  it('counts an unknown channel event without replying', async () => {
    const c = await RawClient.open(srv.port, { vsn: '2.0.0' });
    joinV2(c, 'realtime:unk');
    await c.v2('phx_reply', '1');
    c.send(['1', '2', 'realtime:unk', 'shout', { a: 1 }]);
    c.send([null, '3', 'phoenix', 'heartbeat', {}]);
    await c.v2('phx_reply', '3');
    expect(c.frames.some((f) => Array.isArray(f.json) && f.json[1] === '2')).toBe(false);
    c.close();
  });

  it('crashes only the channel on a broadcast whose payload is not a map', async () => {
    const c = await RawClient.open(srv.port, { vsn: '2.0.0' });
    joinV2(c, 'realtime:crash');
    await c.v2('phx_reply', '1');
    c.send(['1', '2', 'realtime:crash', 'broadcast', 'just a string']);
    expect(await c.v2('phx_error')).toEqual([
      '1',
      null,
      'realtime:crash',
      'phx_error',
      { reason: 'channel_crash' },
    ]);
    c.send([null, '3', 'phoenix', 'heartbeat', {}]);
    await c.v2('phx_reply', '3');
    c.close();
  });
});

describe('connect refusals (§1.5)', () => {
  it('gives the exact statuses and bodies', async () => {
    const expired = await token({ exp: Math.floor(Date.now() / 1000) - 10 });
    const noRole = await token({ role: undefined });
    const wrong = await token({}, { secret: 'another-secret-another-secret-another-secret' });
    const noTyp = await token({}, { typ: null });
    expect(await refusedUpgrade(srv.port, '')).toEqual({
      status: 401,
      body: '{"error":"API key is missing"}',
    });
    expect(await refusedUpgrade(srv.port, `apikey=${expired}`)).toEqual({
      status: 401,
      body: '{"error":"Token has expired"}',
    });
    expect(await refusedUpgrade(srv.port, `apikey=${noRole}`)).toEqual({
      status: 401,
      body: '{"error":"Fields `role` and `exp` are required in JWT"}',
    });
    // A non-string role is refused like a missing one, never read as "[object Object]".
    expect(await refusedUpgrade(srv.port, `apikey=${await token({ role: { r: 1 } })}`)).toEqual({
      status: 401,
      body: '{"error":"Fields `role` and `exp` are required in JWT"}',
    });
    expect(await refusedUpgrade(srv.port, 'apikey=not-a-jwt')).toEqual({
      status: 401,
      body: '{"error":"The token provided is not a valid JWT"}',
    });
    expect(await refusedUpgrade(srv.port, `apikey=${wrong}`)).toEqual({
      status: 401,
      body: '{"error":"Failed to validate JWT signature"}',
    });
    expect(await refusedUpgrade(srv.port, `apikey=${noTyp}`)).toEqual({
      status: 401,
      body: '{"error":"Failed to generate JWT signer, check your JWT secret or JWKS configuration"}',
    });
    expect(await refusedUpgrade(srv.port, `apikey=${await token()}&vsn=3.0.0`)).toEqual({
      status: 403,
      body: '',
    });
  });

  it('prefers the x-api-key header over ?apikey', async () => {
    const c = await RawClient.open(srv.port, {
      apikey: 'garbage',
      headers: { 'x-api-key': await token() },
    });
    c.send({ topic: 'phoenix', event: 'heartbeat', payload: {}, ref: '1' });
    await c.v1('phx_reply', '1');
    c.close();
  });
});

describe('join refusals (§3.2)', () => {
  it('uses the per-channel access_token and reports its failures verbatim', async () => {
    const c = await RawClient.open(srv.port, { vsn: '2.0.0' });
    const expired = await token({ exp: Math.floor(Date.now() / 1000) - 30 });
    c.send(['1', '1', 'realtime:t', 'phx_join', { access_token: expired }]);
    const reason = ((await c.v2('phx_reply', '1'))[4] as { response: { reason: string } }).response
      .reason;
    expect(reason).toMatch(/^InvalidJWTToken: Token has expired (3\d) seconds ago$/);
    c.send(['2', '2', 'realtime:t', 'phx_join', { access_token: 'nope' }]);
    expect((await c.v2('phx_reply', '2'))[4]).toEqual({
      status: 'error',
      response: { reason: 'MalformedJWT: The token provided is not a valid JWT' },
    });
    c.send([
      '3',
      '3',
      'realtime:t',
      'phx_join',
      { access_token: await token({ role: undefined }) },
    ]);
    expect((await c.v2('phx_reply', '3'))[4]).toEqual({
      status: 'error',
      response: { reason: 'InvalidJWTToken: Fields `role` and `exp` are required in JWT' },
    });
    c.send(['5', '5', 'realtime:t', 'phx_join', { access_token: await token({ role: 42 }) }]);
    expect((await c.v2('phx_reply', '5'))[4]).toEqual({
      status: 'error',
      response: { reason: 'InvalidJWTToken: Fields `role` and `exp` are required in JWT' },
    });
    // An `sb_` key is ignored in favour of the socket token.
    c.send(['4', '4', 'realtime:t', 'phx_join', { access_token: 'sb_publishable_abc' }]);
    expect((await c.v2('phx_reply', '4'))[4]).toEqual({
      status: 'ok',
      response: { postgres_changes: [] },
    });
    c.close();
  });

  it('refuses private channels and Postgres Changes without a database', async () => {
    const c = await RawClient.open(srv.port, { vsn: '2.0.0' });
    c.send(['1', '1', 'realtime:p', 'phx_join', { config: { private: true } }]);
    expect((await c.v2('phx_reply', '1'))[4]).toEqual({
      status: 'error',
      response: {
        reason: 'UnableToConnectToProject: Realtime was unable to connect to the project database',
      },
    });
    c.send([
      '2',
      '2',
      'realtime:p',
      'phx_join',
      { config: { broadcast: { replay: { since: 0 } } } },
    ]);
    expect((await c.v2('phx_reply', '2'))[4]).toEqual({
      status: 'error',
      response: { reason: 'UnableToReplayMessages: Replay is not allowed for public channels' },
    });
    c.close();
  });
});

describe('idle timeout (§1.2, §2.4)', () => {
  it('closes a socket that sends nothing for the idle timeout, and keeps one that heartbeats', async () => {
    const s = await serve({ timings: { idleTimeoutMs: 300 } });
    try {
      const quiet = await RawClient.open(s.port, { vsn: '2.0.0' });
      const busy = await RawClient.open(s.port, { vsn: '2.0.0' });
      for (let i = 0; i < 8; i++) {
        busy.send([null, `hb${i}`, 'phoenix', 'heartbeat', {}]);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(await quiet.closed()).toBe(1000);
      expect(busy.closeCode).toBeNull();
      busy.close();
    } finally {
      await s.close();
    }
  });
});

describe('tenants (§1.3)', () => {
  it('routes by the first Host label when tenants are listed, each with its own secret', async () => {
    const s = await serve({
      config: {
        tenants: [
          { id: 'acme', jwt_secret: 'acme-secret-acme-secret-acme-secret-acme' },
          { id: 'off', suspended: true },
          { id: 'priv', private_only: true },
        ],
      },
    });
    try {
      const acmeToken = await token({}, { secret: 'acme-secret-acme-secret-acme-secret-acme' });
      expect(await refusedUpgrade(s.port, `apikey=${acmeToken}`, { host: '127.0.0.1' })).toEqual({
        status: 404,
        body: '{"error":"Tenant not found"}',
      });
      expect(
        await refusedUpgrade(s.port, `apikey=${await token()}`, { host: 'acme.localhost:4000' }),
      ).toEqual({
        status: 401,
        body: '{"error":"Failed to validate JWT signature"}',
      });
      expect(
        await refusedUpgrade(s.port, `apikey=${await token()}`, { host: 'off.localhost' }),
      ).toEqual({ status: 403, body: '{"error":"Realtime was disabled for this tenant"}' });
      const c = await RawClient.open(s.port, {
        vsn: '2.0.0',
        apikey: acmeToken,
        host: 'acme.localhost:4000',
      });
      c.send(['1', '1', 'realtime:t', 'phx_join', {}]);
      expect((await c.v2('phx_reply', '1'))[4]).toMatchObject({ status: 'ok' });
      const p = await RawClient.open(s.port, { vsn: '2.0.0', host: 'priv.localhost' });
      p.send(['1', '1', 'realtime:t', 'phx_join', {}]);
      expect((await p.v2('phx_reply', '1'))[4]).toEqual({
        status: 'error',
        response: { reason: 'PrivateOnly: This project only allows private channels' },
      });
      c.close();
      p.close();
    } finally {
      await s.close();
    }
  });
});
