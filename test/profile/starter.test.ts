/**
 * Starter profiles (src/profile/starter.ts): URL forms a user pastes, the kind each names, and
 * that every starter is a valid profile that names its keys only as environment variables.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadProfile } from '../../src/profile/load.js';
import {
  buildStarter,
  HOSTED_FREE_QUOTAS,
  normaliseUrl,
  StarterError,
} from '../../src/profile/starter.js';
import { tempDir } from '../support/temp-dir.js';

const ENV = {
  SUPABASE_ANON_KEY: 'anon-key-value',
  SUPABASE_JWT_SECRET: 'jwt-secret-value',
  REALTIME_JWT_SECRET: 'rt-secret',
  REALTIME_METRICS_TOKEN: 'metrics-token',
};
// Only the keys this file sets are put back: replacing process.env with a copy would leave it a
// plain object, which the system's environment (what os.tmpdir() and child processes read) no
// longer follows, for every test file after this one in the same process.
const saved = Object.fromEntries(Object.keys(ENV).map((k) => [k, process.env[k]]));
afterEach(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

async function load(yaml: string) {
  const dir = tempDir('rtcap-starter-');
  const path = join(dir, 'p.yaml');
  writeFileSync(path, yaml);
  Object.assign(process.env, ENV);
  return (await loadProfile(path)).profile;
}

describe('normaliseUrl', () => {
  it.each([
    ['https://abc.supabase.co', 'wss://abc.supabase.co/realtime/v1/websocket', true],
    ['https://abc.supabase.co/', 'wss://abc.supabase.co/realtime/v1/websocket', true],
    ['wss://abc.supabase.co/realtime/v1', 'wss://abc.supabase.co/realtime/v1/websocket', true],
    ['http://localhost:8000/realtime/v1', 'ws://localhost:8000/realtime/v1/websocket', false],
    ['ws://127.0.0.1:4000/socket', 'ws://127.0.0.1:4000/socket/websocket', false],
    ['ws://127.0.0.1:4000/socket/websocket', 'ws://127.0.0.1:4000/socket/websocket', false],
  ])('%s → %s', (input, url, hosted) => {
    expect(normaliseUrl(input)).toEqual({ url, hosted });
  });

  it.each([
    ['not a url', /is not a URL/],
    ['ws://127.0.0.1:99999/socket/websocket', /is not a URL: port "99999" is not a port number/],
    ['http://localhost:70000/socket', /is not a URL: port "70000" is not a port number/],
    ['ftp://x/socket/websocket', /not WebSocket servers/],
    ['ws://127.0.0.1:4000/', /not a socket path/],
    ['ws://u:pw@127.0.0.1:4000/socket/websocket', /without credentials/],
    ['wss://abc.supabase.co/realtime/v1/websocket?apikey=k', /without credentials or query/],
    ['http://abc.supabase.co', /over wss/],
  ])('refuses %s', (input, message) => {
    expect(() => normaliseUrl(input)).toThrow(message);
  });
});

describe('buildStarter', () => {
  it('refuses an empty --topic (the profile it wrote failed validate: "must not be empty")', () => {
    const url = 'ws://127.0.0.1:4000/socket/websocket';
    expect(() => buildStarter({ url, kind: 'phoenix', topic: '' })).toThrow(
      '--topic needs a topic name, e.g. room:lobby (it was empty)',
    );
  });

  it('asks for the kind when the URL does not say, and refuses kinds that do not fit', () => {
    expect(() => buildStarter({ url: 'ws://127.0.0.1:4000/socket/websocket' })).toThrow(
      /--kind realtime .* --kind phoenix/,
    );
    expect(() => buildStarter({ url: 'https://abc.supabase.co', kind: 'phoenix' })).toThrow(
      /--kind supabase/,
    );
    expect(() =>
      buildStarter({ url: 'ws://127.0.0.1:4000/socket/websocket', kind: 'supabase' }),
    ).toThrow(/hosted projects/);
    expect(() =>
      buildStarter({ url: 'ws://127.0.0.1:4000/socket/websocket', kind: 'phoenix', private: true }),
    ).toThrow(StarterError);
    expect(buildStarter({ url: 'http://localhost:8000/realtime/v1' }).kind).toBe('realtime');
  });

  it('hosted: the key from the environment, steps under the Free plan quotas, private SQL when asked', async () => {
    for (const priv of [false, true]) {
      const s = buildStarter({ url: 'https://abc.supabase.co', private: priv });
      expect(s.yaml).toContain('${SUPABASE_ANON_KEY}');
      expect(s.yaml).not.toContain('anon-key-value');
      const p = await load(s.yaml);
      expect(p.target.url).toBe('wss://abc.supabase.co/realtime/v1/websocket');
      expect(p.target.auth?.apikey).toBe('anon-key-value');
      expect(p.scenario).toBe(priv ? 'broadcast-private' : 'broadcast-public');
      for (const step of p.load.steps) {
        expect(step.connections).toBeLessThanOrEqual(HOSTED_FREE_QUOTAS.connections);
        // Every delivery and every send counts against max_events_per_second.
        const sendsPerS = priv
          ? (step.rooms ?? 0) * (step.room_send_rate ?? 0)
          : (step.send_rate ?? 0);
        const perSend = priv ? (step.members ?? 1) - 1 : step.connections;
        expect(sendsPerS * (perSend + 1)).toBeLessThan(HOSTED_FREE_QUOTAS.messagesPerS);
      }
      expect(p.load.join_rate).toBeLessThan(HOSTED_FREE_QUOTAS.joinsPerS);
      expect(s.setup.join('\n').includes('create policy')).toBe(priv);
      expect(s.env.map((e) => e.name)).toEqual(
        priv ? ['SUPABASE_ANON_KEY', 'SUPABASE_JWT_SECRET'] : ['SUPABASE_ANON_KEY'],
      );
    }
  });

  it('self-hosted Realtime elsewhere: minted tokens, its /metrics for server CPU and memory', async () => {
    const s = buildStarter({ url: 'ws://10.0.0.5:4000/socket/websocket', kind: 'realtime' });
    const p = await load(s.yaml);
    expect(p.target.auth?.jwt_secret).toBe('rt-secret');
    expect(p.target.metrics_url).toBe('http://10.0.0.5:4000/metrics');
    expect(p.target.metrics_token).toBe('metrics-token');
    expect(p.target.dialect).toBe('supabase');
    expect(s.env.map((e) => e.name)).toEqual(['REALTIME_JWT_SECRET', 'REALTIME_METRICS_TOKEN']);
  });

  it('self-hosted Realtime on this machine: no metrics token asked, the port is sampled', async () => {
    const s = buildStarter({
      url: 'ws://127.0.0.1:4000/socket/websocket',
      kind: 'realtime',
      local: true,
      devSecret: 'the-published-development-secret',
    });
    expect(s.yaml).not.toContain('metrics');
    expect(s.yaml).toContain('sampled from the process listening on port 4000');
    const p = await load(s.yaml);
    expect(p.target.metrics_url).toBeUndefined();
    expect(s.env.map((e) => e.name)).toEqual(['REALTIME_JWT_SECRET']);
    expect(s.setup.join('\n')).not.toContain('METRICS');
    expect(s.setup[0]).toContain('$ export REALTIME_JWT_SECRET=the-published-development-secret');
  });

  it("self-hosted Realtime: --host names the tenant as target.host (default the development stack's)", async () => {
    const url = 'ws://127.0.0.1:4000/socket/websocket';
    const dev = await load(buildStarter({ url, kind: 'realtime' }).yaml);
    expect(dev.target.host).toBe('realtime-dev.localhost');
    for (const priv of [false, true]) {
      const s = buildStarter({
        url,
        kind: 'realtime',
        private: priv,
        host: 'realtime-private.localhost',
      });
      expect((await load(s.yaml)).target.host).toBe('realtime-private.localhost');
    }
    expect(
      (await load(buildStarter({ url, kind: 'realtime', host: 'rt.example.com:4000' }).yaml)).target
        .host,
    ).toBe('rt.example.com:4000');
    // Not a host name (nothing but a Host header reaches the YAML), or not a Realtime's tenant.
    for (const host of ['', 'a b', 'x\n  evil: 1', 'realtime-private.localhost/x'])
      expect(() => buildStarter({ url, kind: 'realtime', host })).toThrow(
        `--host "${host}" is not a host name`,
      );
    expect(() => buildStarter({ url, kind: 'phoenix', host: 'a.localhost' })).toThrow(
      /--host names a self-hosted Realtime's tenant/,
    );
    expect(() => buildStarter({ url: 'https://abc.supabase.co', host: 'a.localhost' })).toThrow(
      /--host names a self-hosted Realtime's tenant/,
    );
  });

  it.each([
    [{ vsn: '2.0.0', binary: true }, '2.0.0', undefined],
    [{ vsn: '2.0.0', binary: false }, '2.0.0', false],
    [{ vsn: '1.0.0', binary: false }, '1.0.0', undefined],
  ] as const)("the encoding a probe chose, %o, is the profile's", async (encoding, vsn, binary) => {
    for (const url of ['ws://127.0.0.1:4000/socket/websocket', 'https://abc.supabase.co']) {
      const s = buildStarter({
        url,
        kind: url.startsWith('ws') ? 'realtime' : 'supabase',
        encoding,
      });
      const p = await load(s.yaml);
      expect(p.target.vsn).toBe(vsn);
      expect(p.target.binary_broadcast).toBe(binary);
    }
  });

  it('Phoenix app: the phoenix dialect on the given topic, and the handle_in it needs', async () => {
    const s = buildStarter({
      url: 'ws://127.0.0.1:4000/socket/websocket',
      kind: 'phoenix',
      topic: 'rooms:42',
    });
    const p = await load(s.yaml);
    expect(p.target).toMatchObject({
      dialect: 'phoenix',
      topic: 'rooms:42',
      push_event: 'broadcast',
      receive_event: 'broadcast',
    });
    expect(s.setup[0]).toContain('broadcast_from!');
    expect(s.env).toEqual([]);
  });
});
