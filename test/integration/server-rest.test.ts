/**
 * REST broadcast (docs/PROTOCOL.md §4.3–§4.4), /healthcheck and /metrics, and bad input to them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/server.js';
import { RawClient, serve, token } from '../server/helpers.js';

let srv: RunningServer;
let auth: string;
beforeAll(async () => {
  srv = await serve();
  auth = `Bearer ${await token()}`;
});
afterAll(() => srv.close());

const post = (path: string, body: string | Uint8Array, headers: Record<string, string> = {}) =>
  fetch(`http://127.0.0.1:${srv.port}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: auth, ...headers },
    body,
  });

async function member(topic: string, vsn = '2.0.0'): Promise<RawClient> {
  const c = await RawClient.open(srv.port, { vsn });
  if (vsn === '2.0.0') {
    c.send(['1', '1', topic, 'phx_join', {}]);
    await c.v2('phx_reply', '1');
  } else {
    c.send({ topic, event: 'phx_join', payload: {}, ref: '1', join_ref: '1' });
    await c.v1('phx_reply', '1');
  }
  return c;
}

describe('POST /api/broadcast (batch)', () => {
  it('accepts with 202 and delivers frames identical to a socket broadcast, meta.id included', async () => {
    const m = await member('realtime:rest1');
    const res = await post(
      '/api/broadcast',
      JSON.stringify({
        messages: [{ topic: 'rest1', event: 'e', payload: { a: 1 }, id: 'msg-1' }],
      }),
    );
    expect(res.status).toBe(202);
    expect(await res.text()).toBe('');
    const f = await m.next((x) => Array.isArray(x.json) && x.json[3] === 'broadcast');
    expect(f.text).toBe(
      '[null,null,"realtime:rest1","broadcast",{"type":"broadcast","event":"e","payload":{"a":1},"meta":{"id":"msg-1"}}]',
    );
    m.close();
  });

  it('also answers on the gateway path and takes the apikey header', async () => {
    const m = await member('realtime:rest2');
    const res = await fetch(`http://127.0.0.1:${srv.port}/realtime/v1/api/broadcast`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', apikey: await token() },
      body: JSON.stringify({ messages: [{ topic: 'rest2', event: 'e', payload: {} }] }),
    });
    expect(res.status).toBe(202);
    await m.v2('broadcast');
    m.close();
  });

  it('refuses bad auth, bad JSON and invalid messages with the documented bodies', async () => {
    const noAuth = await fetch(`http://127.0.0.1:${srv.port}/api/broadcast`, {
      method: 'POST',
      body: '{}',
    });
    expect([noAuth.status, await noAuth.json()]).toEqual([401, { message: 'Unauthorized' }]);
    const badToken = await post('/api/broadcast', '{}', { authorization: 'Bearer nope' });
    expect(badToken.status).toBe(401);
    const objectRole = await token({ role: { r: 1 } });
    const badRole = await post('/api/broadcast', '{}', { authorization: `Bearer ${objectRole}` });
    expect([badRole.status, await badRole.json()]).toEqual([401, { message: 'Unauthorized' }]);
    const badJson = await post('/api/broadcast', '{"messages": [');
    expect([badJson.status, await badJson.json()]).toEqual([
      400,
      { errors: { detail: 'Bad Request' } },
    ]);
    const invalid = await post(
      '/api/broadcast',
      JSON.stringify({
        messages: [
          { topic: 'x', event: 'e', payload: {} },
          { topic: '', payload: 'str' },
        ],
      }),
    );
    expect(invalid.status).toBe(422);
    expect(await invalid.json()).toEqual({
      errors: {
        messages: [
          {},
          { topic: ["can't be blank"], event: ["can't be blank"], payload: ['is invalid'] },
        ],
      },
    });
    const missing = await post('/api/broadcast', '{}');
    expect(missing.status).toBe(422);
    const wrongMethod = await fetch(`http://127.0.0.1:${srv.port}/api/broadcast`, {
      headers: { authorization: auth },
    });
    expect(wrongMethod.status).toBe(404);
  });

  it('drops private messages when no database can authorise them', async () => {
    const m = await member('realtime:rest3');
    const res = await post(
      '/api/broadcast',
      JSON.stringify({
        messages: [
          { topic: 'rest3', event: 'e', payload: {}, private: true },
          { topic: 'rest3', event: 'pub', payload: {} },
        ],
      }),
    );
    expect(res.status).toBe(202);
    const f = await m.v2('broadcast');
    expect((f[4] as { event: string }).event).toBe('pub');
    expect(m.frames.filter((x) => Array.isArray(x.json) && x.json[3] === 'broadcast')).toHaveLength(
      1,
    );
    m.close();
  });
});

describe('POST /api/broadcast/:topic/events/:event (single)', () => {
  it('delivers JSON as a user broadcast (kind 4 to v2, JSON to v1)', async () => {
    const v2 = await member('realtime:single');
    const v1 = await member('realtime:single', '1.0.0');
    const res = await post('/api/broadcast/single/events/hello', JSON.stringify({ n: 1 }));
    expect(res.status).toBe(202);
    const bin = await v2.next((f) => f.bin !== null);
    expect(bin.bin![0]).toBe(4);
    expect(bin.bin!.subarray(-7).toString()).toBe('{"n":1}');
    expect((await v1.next((f) => (f.json as { event?: string }).event === 'broadcast')).text).toBe(
      '{"topic":"realtime:single","event":"broadcast","payload":{"type":"broadcast","event":"hello","payload":{"n":1}},"ref":null}',
    );
    v1.close();
    v2.close();
  });

  it('delivers octet-stream bytes as binary kind 4, accepts a realtime:-prefixed topic, refuses other types', async () => {
    const v2 = await member('realtime:bytes');
    const res = await post(
      '/api/broadcast/realtime%3Abytes/events/raw',
      new Uint8Array([1, 2, 3]),
      { 'content-type': 'application/octet-stream' },
    );
    expect(res.status).toBe(202);
    const bin = await v2.next((f) => f.bin !== null);
    expect([bin.bin![4], ...bin.bin!.subarray(-3)]).toEqual([0, 1, 2, 3]);
    expect(
      (await post('/api/broadcast/bytes/events/x', 'hi', { 'content-type': 'text/plain' })).status,
    ).toBe(415);
    expect((await post('/api/broadcast/bytes/events/x', '{bad')).status).toBe(400);
    const priv = await post('/api/broadcast/bytes/events/x?private=true', '{}');
    expect([priv.status, await priv.json()]).toEqual([
      422,
      { message: 'Tenant database unavailable' },
    ]);
    v2.close();
  });
});

describe('healthcheck and metrics', () => {
  it('serves /healthcheck and Prometheus text on /metrics', async () => {
    expect((await fetch(`http://127.0.0.1:${srv.port}/healthcheck`)).status).toBe(200);
    const m = await member('realtime:metrics');
    const res = await fetch(`http://127.0.0.1:${srv.port}/metrics`);
    expect(res.headers.get('content-type')).toMatch(/text\/plain/);
    const text = await res.text();
    const value = (name: string) =>
      Number(
        text
          .split('\n')
          .find((l) => l.startsWith(`${name} `))
          ?.split(' ')[1],
      );
    expect(value('realtime_connections_connected')).toBeGreaterThanOrEqual(1);
    expect(value('realtime_channels_joined')).toBeGreaterThanOrEqual(1);
    expect(value('realtime_channel_joins_total')).toBeGreaterThanOrEqual(1);
    expect(value('realtime_broadcast_deliveries_total')).toBeGreaterThanOrEqual(1);
    expect(text).toContain('process_cpu_seconds_total');
    expect(text).toContain('process_resident_memory_bytes');
    expect(text).toContain('realtime_auth_pool_waiting');
    expect((await fetch(`http://127.0.0.1:${srv.port}/nope`)).status).toBe(404);
    m.close();
  });
});
