/**
 * Known answer for `rtcap init`'s probe: a server that closes a connection with 1011 at its first
 * binary broadcast push (Supabase Realtime v2.28 under vsn 2.0.0) gets a profile of JSON text
 * frames (target.binary_broadcast: false), one that reads binary pushes keeps vsn 2.0.0 binary;
 * each written profile then runs stable against its server. A server that is not there is named
 * in one line (exit 3) and nothing is written; a URL that cannot be a server is refused first.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/result/result.js';
import { startTestServer, type TestServer } from '../support/phoenix-test-server.js';
import { expectOneLine, smallSteps } from '../support/init-cli.js';
import { rtcapCli } from '../support/rtcap-process.js';
import { tempDir } from '../support/temp-dir.js';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

/** rtcap with no REALTIME_JWT_SECRET of the caller's: init probes with the published one. */
function rtcap(args: string[], cwd?: string) {
  return rtcapCli(args, { cwd, env: { REALTIME_JWT_SECRET: '' } });
}

const SMALL = smallSteps([10, 20, 20]);

async function initAndRun(
  url: string,
  initArgs: string[] = [],
): Promise<{ yaml: string; stdout: string; result: RunResult }> {
  const dir = tempDir('rtcap-init-probe-');
  const profile = join(dir, 'rtcap.yaml');
  const init = await rtcap(['init', url, '--kind', 'realtime', '--out', profile, ...initArgs]);
  expect(init.code, init.stderr).toBe(0);
  const yaml = readFileSync(profile, 'utf8');
  const out = join(dir, 'run');
  const env = { REALTIME_JWT_SECRET: 'any-secret-the-test-server-ignores-0123456789' };
  const run = await rtcapCli(['run', profile, '--out', out, '--no-progress', ...SMALL], { env });
  expect(run.code, run.stderr.slice(-2000)).toBe(0);
  const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as RunResult;
  return { yaml, stdout: init.stdout, result };
}

function expectStable(result: RunResult): void {
  expect(result.steps).toHaveLength(3);
  for (const s of result.steps) {
    expect(s.verdict, s.verdict_reasons.join('; ')).toBe('stable');
    expect(s.messages.expected).toBeGreaterThan(0);
    expect(s.messages.received).toBe(s.messages.expected);
  }
}

describe('rtcap init probes the server before it writes', () => {
  it('a server that closes the connection at a binary push: JSON text frames, and the run is stable', async () => {
    server = await startTestServer({ closeOnBinaryPush: 1011 });
    const url = `ws://127.0.0.1:${server.port}/socket/websocket`;
    const { yaml, stdout, result } = await initAndRun(url);
    // The probe: one binary push, closed with 1011; then one text push, back.
    expect(server.stats.closedOnBinaryPush).toBe(1);
    expect(stdout.split('\n')[0]).toMatch(
      /^probed .*came back under vsn 2\.0\.0 JSON text frames .*vsn 2\.0\.0 binary broadcasts: closed by server: 1011/,
    );
    expect(yaml).toMatch(/^ {2}vsn: "2\.0\.0"$/m);
    expect(yaml).toMatch(/^ {2}binary_broadcast: false/m);
    for (const s of result.steps) expect(s.errors).toEqual({});
    expectStable(result);
    // The run sent no binary push: the server closed only the probe's connection.
    expect(server.stats.closedOnBinaryPush).toBe(1);
  }, 180_000);

  it('a server that reads binary pushes: vsn 2.0.0 binary, and the run is stable', async () => {
    server = await startTestServer();
    const url = `ws://127.0.0.1:${server.port}/socket/websocket`;
    const { yaml, stdout, result } = await initAndRun(url);
    expect(stdout.split('\n')[0]).toMatch(
      /^probed .*came back under vsn 2\.0\.0 binary broadcasts in \d+ ms: wrote vsn 2\.0\.0 binary/,
    );
    expect(yaml).toMatch(/^ {2}vsn: "2\.0\.0"$/m);
    expect(yaml).not.toContain('binary_broadcast');
    expect(server.stats.closedOnBinaryPush).toBe(0);
    expectStable(result);
  }, 180_000);

  it('--host names the tenant: the probe and the run of the profile it wrote send it as the Host header', async () => {
    server = await startTestServer();
    const url = `ws://127.0.0.1:${server.port}/socket/websocket`;
    // Without it, the development stack's tenant, as before.
    const dev = await rtcap([
      'init',
      url,
      '--kind',
      'realtime',
      '--out',
      join(tempDir('rtcap-init-probe-'), 'p.yaml'),
    ]);
    expect(dev.code, dev.stderr).toBe(0);
    const probed = server.upgradeHosts.length;
    expect(probed).toBeGreaterThan(0);
    expect(new Set(server.upgradeHosts)).toEqual(new Set(['realtime-dev.localhost']));
    const { yaml, result } = await initAndRun(url, ['--host', 'realtime-private.localhost']);
    expect(yaml).toMatch(/^ {2}host: realtime-private\.localhost$/m);
    // The probe's connection, then the run's 20 (and any reconnection): every one to that tenant.
    const after = server.upgradeHosts.slice(probed);
    expect(after.length).toBeGreaterThanOrEqual(21);
    expect(new Set(after)).toEqual(new Set(['realtime-private.localhost']));
    expectStable(result);
  }, 180_000);

  it('a port nothing listens on: one line, exit 3, nothing written, within seconds; --no-probe writes', async () => {
    const port = await new Promise<number>((res) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => res(p));
      });
    });
    const dir = tempDir('rtcap-init-probe-');
    const out = join(dir, 'rtcap.yaml');
    const url = `ws://127.0.0.1:${port}/socket/websocket`;
    const r = await rtcap(['init', url, '--kind', 'realtime', '--out', out]);
    expectOneLine(r, 3, `nothing listens on 127.0.0.1:${port}`);
    expect(r.ms).toBeLessThan(15_000);
    expect(existsSync(out)).toBe(false);
    const unprobed = await rtcap(['init', url, '--kind', 'realtime', '--out', out, '--no-probe']);
    expect(unprobed.code).toBe(0);
    expect(unprobed.stdout.split('\n')[0]).toContain('not probed (--no-probe)');
    expect(existsSync(out)).toBe(true);
  }, 60_000);

  it('a WebSocket that is not Phoenix: named in one line, exit 3', async () => {
    const dir = tempDir('rtcap-init-probe-');
    const http = createServer((s) => s.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n'));
    await new Promise<void>((res) => http.listen(0, '127.0.0.1', res));
    const port = (http.address() as { port: number }).port;
    try {
      const r = await rtcap([
        'init',
        `ws://127.0.0.1:${port}/socket/websocket`,
        '--kind',
        'realtime',
        '--out',
        join(dir, 'x.yaml'),
      ]);
      expectOneLine(r, 3, 'is not a Phoenix channels socket (upgrade refused: HTTP 404');
    } finally {
      http.close();
    }
  }, 60_000);

  it('a Phoenix app probed as a Realtime: its refusal quoted, --kind phoenix named, exit 3', async () => {
    server = await startTestServer({ topicPrefix: 'room:' });
    const dir = tempDir('rtcap-init-probe-');
    const url = `ws://127.0.0.1:${server.port}/socket/websocket`;
    const r = await rtcap(['init', url, '--kind', 'realtime', '--out', join(dir, 'x.yaml')]);
    expectOneLine(r, 3, "has no channel for the probe's topic (join refused: unmatched topic)");
    expect(r.stderr).toContain('--kind phoenix');
    expect(existsSync(join(dir, 'x.yaml'))).toBe(false);
  }, 60_000);

  it('ftp://x is refused as a URL, even where rtcap.yaml exists', async () => {
    const dir = tempDir('rtcap-init-probe-');
    writeFileSync(join(dir, 'rtcap.yaml'), 'name: mine\n');
    const r = await rtcap(['init', 'ftp://x'], dir);
    expectOneLine(r, 2, 'ftp: URLs are not WebSocket servers');
    expect(readFileSync(join(dir, 'rtcap.yaml'), 'utf8')).toBe('name: mine\n');
  }, 30_000);
});
