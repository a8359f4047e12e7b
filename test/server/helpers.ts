/**
 * Test helpers for the built-in server: tokens, a raw WebSocket client that records every
 * frame, and bounded waits. Everything on 127.0.0.1.
 */
import { SignJWT } from 'jose';
import WebSocket from 'ws';
import { DEV_JWT_SECRET } from '../../src/builtin/config.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import type { ServerOptions } from '../../src/server/options.js';

export const FAST_TIMINGS = { connectErrorBackoffMs: 0, channelErrorBackoffMs: 0 };

export async function token(
  claims: Record<string, unknown> = {},
  opts: { secret?: string; expInS?: number; typ?: string | null } = {},
): Promise<string> {
  const body: Record<string, unknown> = { role: 'anon', ...claims };
  if (!('exp' in claims)) body.exp = Math.floor(Date.now() / 1000) + (opts.expInS ?? 3600);
  if (body.exp === undefined) delete body.exp;
  if (body.role === undefined) delete body.role;
  const header: { alg: string; typ?: string } = { alg: 'HS256' };
  if (opts.typ !== null) header.typ = opts.typ ?? 'JWT';
  return new SignJWT(body)
    .setProtectedHeader(header)
    .sign(new TextEncoder().encode(opts.secret ?? DEV_JWT_SECRET));
}

export function serve(opts: ServerOptions = {}): Promise<RunningServer> {
  return startServer({
    port: 0,
    database: false,
    log: () => undefined,
    ...opts,
    timings: { ...FAST_TIMINGS, ...opts.timings },
  });
}

/** Polls until `pred` holds; fails after `timeoutMs`. */
export async function until(
  pred: () => boolean,
  timeoutMs = 3000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

export interface Received {
  text: string | null;
  bin: Buffer | null;
  /** Parsed text frame. */
  json: unknown;
}

/** A raw client: sends exactly what it is told and records every frame. */
export class RawClient {
  readonly frames: Received[] = [];
  closeCode: number | null = null;
  constructor(readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => {
      const buf = data as Buffer;
      if (isBinary) this.frames.push({ text: null, bin: buf, json: null });
      else this.frames.push({ text: buf.toString(), bin: null, json: JSON.parse(buf.toString()) });
    });
    ws.on('close', (code) => (this.closeCode = code));
  }

  static async open(
    port: number,
    opts: {
      vsn?: string;
      apikey?: string | null;
      host?: string;
      path?: string;
      headers?: Record<string, string>;
    } = {},
  ): Promise<RawClient> {
    const key = opts.apikey === undefined ? await token() : opts.apikey;
    const q = new URLSearchParams();
    if (opts.vsn) q.set('vsn', opts.vsn);
    if (key) q.set('apikey', key);
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.host) headers.host = opts.host;
    const ws = new WebSocket(`ws://127.0.0.1:${port}${opts.path ?? '/socket/websocket'}?${q}`, {
      headers,
    });
    const c = new RawClient(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return c;
  }

  send(msg: unknown): void {
    this.ws.send(typeof msg === 'string' ? msg : JSON.stringify(msg));
  }

  sendBinary(b: Uint8Array): void {
    this.ws.send(b, { binary: true });
  }

  texts(): unknown[] {
    return this.frames.filter((f) => f.text !== null).map((f) => f.json);
  }

  async next(pred: (f: Received) => boolean = () => true, timeoutMs = 3000): Promise<Received> {
    let found: Received | undefined;
    await until(() => (found = this.frames.find(pred)) !== undefined, timeoutMs, 'a frame');
    return found!;
  }

  /** Waits for a v2 text frame with this event (and ref, when given). */
  async v2(event: string, ref?: string | null, timeoutMs = 3000): Promise<unknown[]> {
    const f = await this.next(
      (x) =>
        Array.isArray(x.json) && x.json[3] === event && (ref === undefined || x.json[1] === ref),
      timeoutMs,
    );
    return f.json as unknown[];
  }

  /** Waits for a v1 text frame with this event (and ref, when given). */
  async v1(event: string, ref?: string | null, timeoutMs = 3000): Promise<Record<string, unknown>> {
    const f = await this.next((x) => {
      const o = x.json as Record<string, unknown> | null;
      return !!o && !Array.isArray(o) && o.event === event && (ref === undefined || o.ref === ref);
    }, timeoutMs);
    return f.json as Record<string, unknown>;
  }

  async closed(timeoutMs = 3000): Promise<number> {
    await until(() => this.closeCode !== null, timeoutMs, 'close');
    return this.closeCode!;
  }

  close(): void {
    this.ws.terminate();
  }
}

/** An upgrade that the server refuses: status and body. */
export async function refusedUpgrade(
  port: number,
  query: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/socket/websocket?${query}`, { headers });
  return new Promise((resolve, reject) => {
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.on('open', () => {
      ws.terminate();
      reject(new Error('upgrade unexpectedly accepted'));
    });
    ws.on('error', () => undefined);
  });
}
