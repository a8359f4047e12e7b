/**
 * REST broadcast (docs/PROTOCOL.md §4.3 batch, §4.4 single). Delivered frames are identical to a
 * WebSocket-originated broadcast; the caller is not a subscriber, so nobody is excluded.
 * Each accepted message counts +1 toward max_events_per_second, plus one per recipient in
 * the fan-out (docs/PROTOCOL.md §8.2).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ENCODING, EV, REALTIME_TOPIC_PREFIX } from '../protocol/constants.js';
import { errorCode } from './db-types.js';
import type { ServerState } from './server-state.js';
import { pubsubKey } from './pubsub.js';
import type { Tenant } from './tenant.js';
import { Outgoing, type OutBody } from './wire.js';

/** Plug.Parsers' default body limit. */
const MAX_BODY_BYTES = 8_000_000;
const GATEWAY_PREFIX = '/realtime/v1';
const SINGLE = /^\/api\/broadcast\/([^/]+)\/events\/([^/]+)$/;

export function isRestPath(path: string): boolean {
  const p = path.startsWith(`${GATEWAY_PREFIX}/`) ? path.slice(GATEWAY_PREFIX.length) : path;
  return p === '/api/broadcast' || SINGLE.test(p);
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (body === undefined) {
    res.writeHead(status, headers).end();
    return;
  }
  const text = JSON.stringify(body);
  res
    .writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers })
    .end(text);
}

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        resolve(null);
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** `Authorization: Bearer` wins over the `apikey` header (docs/PROTOCOL.md §4.3). */
function requestToken(req: IncomingMessage): string | null {
  const auth = req.headers.authorization;
  if (auth && /^bearer\s+/i.test(auth)) return auth.replace(/^bearer\s+/i, '');
  const key = req.headers.apikey;
  return (Array.isArray(key) ? key[0] : key) ?? null;
}

function subtopicOf(topic: string): string {
  // realtime-js's httpSend passes the subtopic; callers following the API docs prepend `realtime:`.
  return topic.startsWith(REALTIME_TOPIC_PREFIX)
    ? topic.slice(REALTIME_TOPIC_PREFIX.length)
    : topic;
}

function obj(v: unknown): Record<string, unknown> | null {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : null;
}

export async function handleRest(
  server: ServerState,
  req: IncomingMessage,
  res: ServerResponse,
  rawPath: string,
): Promise<void> {
  const path = rawPath.startsWith(`${GATEWAY_PREFIX}/`)
    ? rawPath.slice(GATEWAY_PREFIX.length)
    : rawPath;
  if (req.method !== 'POST') return send(res, 404, { errors: { detail: 'Not Found' } });
  const tenant = server.tenants.forHost(req.headers.host);
  if (!tenant) return send(res, 401, { message: 'Tenant not found in database' });
  const token = requestToken(req);
  const verified = token ? await tenant.verifier.verify(token) : null;
  if (!verified || !verified.ok) return send(res, 401, { message: 'Unauthorized' });
  if (tenant.config.suspended) return send(res, 403, { message: 'Tenant is suspended' });
  const body = await readBody(req);
  if (body === null) return send(res, 413, { errors: { detail: 'Request Entity Too Large' } });
  const single = SINGLE.exec(path);
  const ctx = { server, tenant, req, claims: verified.claims };
  if (single)
    return broadcastSingle(ctx, res, {
      topic: decodeURIComponent(single[1]),
      event: decodeURIComponent(single[2]),
      body,
    });
  return broadcastBatch(ctx, res, body);
}

interface RestCtx {
  server: ServerState;
  tenant: Tenant;
  req: IncomingMessage;
  claims: Record<string, unknown>;
}

function parseJson(body: Buffer): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(body.toString('utf8')) };
  } catch {
    return { ok: false };
  }
}

function overSize(tenant: Tenant, bytes: number): boolean {
  const kb = tenant.config.max_payload_size_in_kb;
  return kb !== null && bytes > kb * 1000 + 500;
}

/**
 * Write policy for a private REST message, checked with the caller's JWT (docs/PROTOCOL.md §4.3,
 * §6.2).
 */
async function canWrite(
  ctx: RestCtx,
  subtopic: string,
): Promise<true | 'denied' | 'pool' | 'unavailable'> {
  const db = ctx.server.db;
  if (!db) return 'unavailable';
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(ctx.req.headers)) if (typeof v === 'string') headers[k] = v;
  try {
    const ok = await db.authorizeWrite(
      // The verifier admits only a string role.
      { role: ctx.claims.role as string, claims: ctx.claims, subtopic, headers },
      'broadcast',
    );
    return ok ? true : 'denied';
  } catch (e) {
    return errorCode(e) === 'increase_connection_pool' ? 'pool' : 'unavailable';
  }
}

function fanout(ctx: RestCtx, subtopic: string, isPrivate: boolean, body: OutBody): void {
  const { tenant, server } = ctx;
  tenant.events.add(1);
  server.stats.broadcastsIn++;
  const out = new Outgoing(REALTIME_TOPIC_PREFIX + subtopic, EV.broadcast, body);
  server.stats.deliveries += tenant.publish(
    pubsubKey(tenant.id, subtopic, isPrivate),
    out,
    null,
    'broadcast',
  );
}

/** docs/PROTOCOL.md §4.3. */
async function broadcastBatch(ctx: RestCtx, res: ServerResponse, body: Buffer): Promise<void> {
  const { tenant } = ctx;
  const limit = tenant.config.max_events_per_second;
  const rolling = tenant.events.value;
  const rateHeaders: Record<string, string> =
    limit === null
      ? {}
      : {
          'x-rate-rolling': String(rolling),
          'x-rate-limit': String(limit),
          'x-rate-limit-remaining': String(Math.max(0, Math.floor(limit - rolling))),
        };
  // The plug-level limiter: refused while the rolling average is at the limit.
  if (limit !== null && rolling >= limit)
    return send(res, 429, { message: 'Too many requests' }, rateHeaders);
  const parsed = parseJson(body);
  if (!parsed.ok) return send(res, 400, { errors: { detail: 'Bad Request' } });
  const messages = obj(parsed.value)?.messages;
  if (!Array.isArray(messages))
    return send(res, 422, { errors: { messages: ["can't be blank"] } }, rateHeaders);
  const errors: Record<string, string[]>[] = [];
  let invalid = false;
  for (const m of messages) {
    const e: Record<string, string[]> = {};
    const o = obj(m);
    if (!o) e.messages = ['is invalid'];
    else {
      if (typeof o.topic !== 'string' || o.topic === '') e.topic = ["can't be blank"];
      if (typeof o.event !== 'string' || o.event === '') e.event = ["can't be blank"];
      if (o.payload === undefined || o.payload === null) e.payload = ["can't be blank"];
      else if (!obj(o.payload)) e.payload = ['is invalid'];
      else if (overSize(tenant, Buffer.byteLength(JSON.stringify(o.payload))))
        e.payload = ['Payload size exceeds tenant limit'];
    }
    if (Object.keys(e).length) invalid = true;
    errors.push(e);
  }
  if (invalid) return send(res, 422, { errors: { messages: errors } }, rateHeaders);
  if (limit !== null && messages.length + rolling > limit) {
    return send(
      res,
      429,
      { message: 'Too many messages to broadcast, please reduce the batch size' },
      rateHeaders,
    );
  }
  // Private messages: one write check per topic per request; denied messages are dropped silently.
  const allowed = new Map<string, boolean>();
  for (const m of messages as Record<string, unknown>[]) {
    const subtopic = subtopicOf(m.topic as string);
    const isPrivate = m.private === true || m.private === 'true';
    if (isPrivate) {
      if (!allowed.has(subtopic)) allowed.set(subtopic, (await canWrite(ctx, subtopic)) === true);
      if (!allowed.get(subtopic)) continue;
    }
    const payload: Record<string, unknown> = {
      type: 'broadcast',
      event: m.event,
      payload: m.payload,
    };
    if (typeof m.id === 'string') payload.meta = { id: m.id };
    fanout(ctx, subtopic, isPrivate, { json: JSON.stringify(payload) });
  }
  send(res, 202, undefined, rateHeaders);
}

/**
 * docs/PROTOCOL.md §4.4: JSON or raw bytes, delivered as a user broadcast (kind 4 to v2 sockets).
 */
async function broadcastSingle(
  ctx: RestCtx,
  res: ServerResponse,
  message: { topic: string; event: string; body: Buffer },
): Promise<void> {
  const { topic, event, body } = message;
  const { tenant, req } = ctx;
  const type = (req.headers['content-type'] ?? 'application/json')
    .split(';', 1)[0]
    .trim()
    .toLowerCase();
  let bytes: Uint8Array;
  let encoding: number;
  if (type === 'application/octet-stream') {
    bytes = body;
    encoding = ENCODING.binary;
  } else if (type === 'application/json') {
    const parsed = parseJson(body);
    if (!parsed.ok) return send(res, 400, { errors: { detail: 'Bad Request' } });
    if (parsed.value === null || parsed.value === undefined)
      return send(res, 422, { errors: { payload: ["can't be blank"] } });
    bytes = Buffer.from(JSON.stringify(parsed.value));
    encoding = ENCODING.json;
  } else {
    return send(res, 415, undefined);
  }
  const subtopic = subtopicOf(topic);
  if (overSize(tenant, bytes.length))
    return send(res, 422, { errors: { payload: ['Payload size exceeds tenant limit'] } });
  const limit = tenant.config.max_events_per_second;
  if (limit !== null && tenant.events.value >= limit)
    return send(res, 429, { message: 'You have exceeded your rate limit' });
  const url = new URL(req.url ?? '/', 'http://localhost');
  const isPrivate = url.searchParams.get('private') === 'true';
  if (isPrivate) {
    const w = await canWrite(ctx, subtopic);
    if (w === 'denied') return send(res, 403, { message: 'Unauthorized' });
    if (w === 'pool') return send(res, 429, { message: 'Connection pool exhausted' });
    if (w === 'unavailable') return send(res, 422, { message: 'Tenant database unavailable' });
  }
  fanout(ctx, subtopic, isPrivate, { user: { event, encoding, bytes } });
  send(res, 202, undefined);
}
