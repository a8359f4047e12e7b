/**
 * TLS and asymmetric tokens end to end, with a CA and keys generated in the test:
 * `@supabase/realtime-js` over wss:// against `rtcap serve --tls-cert/--tls-key`; ES256 tokens
 * (minted by rtcap from a private key file, `kid` in the header) verified by `rtcap serve
 * --jwks` while HS256 still works; a token signed by another key refused; rtcap's own load
 * over wss:// with target.tls.ca; a wss:// URL against a plain server named a TLS failure.
 */
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RealtimeClient, type RealtimeChannel } from '@supabase/realtime-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { TokenSource } from '../../src/client/auth.js';
import { Connection, type ConnectionHooks } from '../../src/client/connection.js';
import type { ClassifiedError } from '../../src/client/classify.js';
import { runServe, type RunningServe } from '../../src/cli/serve.js';
import { REASON, VSN_2 } from '../../src/protocol/constants.js';
import { runScenario } from '../support/scenario-run.js';
import { profileFrom } from '../support/profiles.js';
import { makeSigningKey, makeTestPki, type TestPki } from '../support/tls.js';
import { serve, token } from '../server/helpers.js';

let pki: TestPki;
let key: { privateKeyFile: string; jwksFile: string };
let srv: RunningServe;
let ca: Buffer;

beforeAll(async () => {
  pki = makeTestPki();
  ca = readFileSync(pki.caCert);
  key = makeSigningKey(pki.dir, 'test-key-1');
  srv = await runServe(
    {
      port: 0,
      host: '127.0.0.1',
      workers: 1,
      database: false,
      readyJson: false,
      supabaseDefaults: false,
      quotas: {},
      timings: {},
      tlsCert: pki.serverCert,
      tlsKey: pki.serverKey,
      jwks: key.jwksFile,
    },
    () => undefined,
  );
}, 60_000);
afterAll(() => srv?.close());

const es256 = (privateKeyFile = key.privateKeyFile, kid = 'test-key-1') =>
  new TokenSource({ privateKeyFile, alg: 'ES256', kid, role: 'anon', ttlMs: 600_000 }).tokenFor(
    0,
  ) as Promise<string>;

/** ws with the test CA: realtime-js constructs its transport with (url, protocols) only. */
class CaWebSocket extends WebSocket {
  constructor(url: string, protocols?: string | string[]) {
    super(url, protocols, { ca });
  }
}

function subscribed(ch: RealtimeChannel): Promise<void> {
  return new Promise((resolve, reject) => {
    ch.subscribe((status, err) => {
      if (status === 'SUBSCRIBED') resolve();
      else if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT')
        reject(err ?? new Error(status));
    });
  });
}

/** Status and body of a refused wss:// upgrade, or 101. */
function upgrade(apikey: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(
      `wss://127.0.0.1:${srv.port}/socket/websocket?vsn=1.0.0&apikey=${encodeURIComponent(apikey)}`,
      { ca },
    );
    ws.on('open', () => {
      ws.close();
      resolve({ status: 101, body: '' });
    });
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.on('error', reject);
  });
}

describe('wss:// and JWKS', () => {
  it('rtcap serve --tls-cert listens on wss://', () => {
    expect(srv.url).toMatch(/^wss:\/\/127\.0\.0\.1:\d+\/socket\/websocket$/);
  });

  it('realtime-js joins and receives its own broadcast over wss:// with the test CA and an ES256 token verified from the JWKS', async () => {
    const accessToken = await es256();
    const client = new RealtimeClient(`wss://127.0.0.1:${srv.port}/socket`, {
      params: { apikey: accessToken },
      transport: CaWebSocket as never,
      vsn: '2.0.0',
      heartbeatIntervalMs: 60_000,
    });
    try {
      const ch = client.channel('tls-room', { config: { broadcast: { self: true } } });
      const got = new Promise<unknown>((resolve) =>
        ch.on('broadcast', { event: 'hello' }, (m) => resolve(m.payload)),
      );
      await subscribed(ch);
      await ch.send({ type: 'broadcast', event: 'hello', payload: { n: 1 } });
      expect(await got).toEqual({ n: 1 });
    } finally {
      await client.disconnect();
    }
  });

  it('refuses an ES256 token signed by another key under the same kid, and one whose kid is not in the set; HS256 still verifies', async () => {
    expect((await upgrade(await es256())).status).toBe(101);
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    });
    const otherFile = join(pki.dir, 'other.pem');
    writeFileSync(otherFile, other);
    const forged = await upgrade(await es256(otherFile));
    expect(forged.status).toBe(401);
    expect(forged.body).toContain(REASON.badSignature);
    const unknownKid = await upgrade(await es256(key.privateKeyFile, 'not-in-the-set'));
    expect(unknownKid.status).toBe(401);
    expect(unknownKid.body).toContain(REASON.noSigner);
    expect((await upgrade(await token())).status).toBe(101);
  });

  it("rtcap's own load runs over wss:// with target.tls.ca and ES256 tokens from target.auth.private_key_file", async () => {
    const profile = profileFrom({
      name: 'wss',
      scenario: 'broadcast-public',
      target: {
        url: srv.url,
        tls: { ca: pki.caCert },
        auth: { private_key_file: key.privateKeyFile, alg: 'ES256', kid: 'test-key-1' },
      },
      load: {
        join_rate: 100,
        drain: '2s',
        steps: [{ connections: 8, send_rate: 5, duration: '2s' }],
      },
    });
    const { result } = await runScenario(profile);
    expect(result.status, result.abort_reason ?? '').toBe('completed');
    const step = result.steps[0];
    expect(step.connections.joined).toBe(8);
    expect(step.messages.expected).toBeGreaterThan(0);
    expect(step.messages.received).toBe(step.messages.expected);
    expect(step.errors).toEqual({});
  }, 60_000);
});

describe('TLS failures are named', () => {
  function connectOnce(
    url: string,
    tls?: { ca?: Buffer; rejectUnauthorized: boolean },
  ): Promise<ClassifiedError | 'open'> {
    return new Promise((resolve) => {
      const hooks = {
        onOpen: (c: Connection) => {
          c.close();
          resolve('open');
        },
        onError: (_c: Connection, e: ClassifiedError) => resolve(e),
        onClosed: () => undefined,
        onStamp: () => undefined,
        onJoined: () => undefined,
        onAck: () => undefined,
        onFrame: () => undefined,
      } as unknown as ConnectionHooks;
      new Connection(0, VSN_2, hooks).connect({ url, headers: {}, handshakeTimeoutMs: 5000, tls });
    });
  }

  it('a wss:// URL against a plain ws:// server is "TLS handshake failed", not ECONNRESET', async () => {
    const plain = await serve();
    try {
      const e = await connectOnce(
        `wss://127.0.0.1:${plain.port}/socket/websocket?vsn=2.0.0&apikey=${await token()}`,
      );
      expect(e).not.toBe('open');
      expect((e as ClassifiedError).reason).toMatch(/^TLS handshake failed: /);
      expect((e as ClassifiedError).reason).not.toMatch(/^connect ECONNRESET/);
    } finally {
      await plain.close();
    }
  });

  it('an untrusted certificate is a TLS failure naming it; target.tls.insecure accepts it', async () => {
    const url = `wss://127.0.0.1:${srv.port}/socket/websocket?vsn=2.0.0&apikey=${await token()}`;
    const e = await connectOnce(url);
    expect((e as ClassifiedError).reason).toMatch(
      /^TLS handshake failed: .*(certificate|UNABLE_TO|SELF_SIGNED)/i,
    );
    expect(await connectOnce(url, { rejectUnauthorized: false })).toBe('open');
    expect(await connectOnce(url, { ca, rejectUnauthorized: true })).toBe('open');
  });
});
