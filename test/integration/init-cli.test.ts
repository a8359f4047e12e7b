/**
 * `rtcap init` as a user runs it: the starter profile it writes for a self-hosted Realtime
 * (here `rtcap serve`) and for a plain Phoenix app (the Phoenix-protocol test server) runs as
 * written, shrunk only in size with --set, and every message is delivered.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/result/result.js';
import { DEV_JWT_SECRET } from '../../src/builtin/config.js';
import { startTestServer, type TestServer } from '../support/phoenix-test-server.js';
import { tempDir } from '../support/temp-dir.js';

const BIN = resolve(import.meta.dirname, '../../bin/rtcap.js');
const stops: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

function rtcap(args: string[], env: Record<string, string> = {}, timeoutMs = 120_000) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((res) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      res({ code, stdout, stderr });
    });
  });
}

/** `rtcap serve` on a free port, without a database; resolves with its port once it listens. */
async function serve(): Promise<number> {
  const child = spawn(
    process.execPath,
    [BIN, 'serve', '--port', '0', '--ready-json', '--no-database'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  stops.push(() => void child.kill('SIGTERM'));
  const line = await new Promise<string>((res, rej) => {
    const timer = setTimeout(
      () => rej(new Error('rtcap serve printed no ready line in 60 s')),
      60_000,
    );
    createInterface({ input: child.stdout }).once('line', (l) => {
      clearTimeout(timer);
      res(l);
    });
  });
  return (JSON.parse(line) as { port: number }).port;
}

/** Three small steps instead of the starter's, same shape. */
const SMALL = ['0', '1', '2'].flatMap((i) => [
  '--set',
  `load.steps.${i}.connections=${i === '0' ? 20 : 40}`,
  '--set',
  `load.steps.${i}.duration=2s`,
]);

function delivered(out: string): RunResult {
  const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as RunResult;
  expect(result.steps).toHaveLength(3);
  for (const s of result.steps) {
    expect(s.connections.joined).toBe(s.connections.target);
    expect(s.messages.lost).toBe(0);
    expect(s.messages.received).toBe(s.messages.expected);
    expect(s.messages.expected).toBeGreaterThan(0);
  }
  return result;
}

describe('rtcap init', () => {
  it('writes a self-hosted Realtime profile that runs against rtcap serve', async () => {
    const port = await serve();
    const dir = tempDir('rtcap-init-');
    const profile = join(dir, 'rtcap.yaml');
    const init = await rtcap([
      'init',
      `ws://127.0.0.1:${port}/socket/websocket`,
      '--kind',
      'realtime',
      '--out',
      profile,
    ]);
    expect(init.code).toBe(0);
    expect(init.stdout).toContain('REALTIME_JWT_SECRET');
    const env = { REALTIME_JWT_SECRET: DEV_JWT_SECRET, REALTIME_METRICS_TOKEN: 'unused' };
    const out = join(dir, 'run');
    const run = await rtcap(['run', profile, '--out', out, '--no-progress', ...SMALL], env);
    expect(run.code, run.stderr.slice(-2000)).toBe(0);
    delivered(out);
    expect(readFileSync(join(out, 'result.json'), 'utf8')).not.toContain(DEV_JWT_SECRET);
  }, 180_000);

  it('writes a Phoenix app profile that runs against a Phoenix-protocol server', async () => {
    const server: TestServer = await startTestServer({ topicPrefix: 'room:' });
    stops.push(() => server.close());
    const dir = tempDir('rtcap-init-');
    const profile = join(dir, 'rtcap.yaml');
    const init = await rtcap([
      'init',
      `ws://127.0.0.1:${server.port}/socket/websocket`,
      '--kind',
      'phoenix',
      '--out',
      profile,
    ]);
    expect(init.code).toBe(0);
    const out = join(dir, 'run');
    const run = await rtcap(['run', profile, '--out', out, '--no-progress', ...SMALL]);
    expect(run.code, run.stderr.slice(-2000)).toBe(0);
    const result = delivered(out);
    expect(result.steps.reduce((n, s) => n + s.messages.received, 0)).toBe(server.stats.deliveries);
  }, 180_000);

  it('refuses, in one line and exit 2, what it cannot write', async () => {
    const dir = tempDir('rtcap-init-');
    const ambiguous = await rtcap([
      'init',
      'ws://127.0.0.1:4000/socket/websocket',
      '--out',
      join(dir, 'a.yaml'),
    ]);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr.trim().split('\n')).toHaveLength(1);
    expect(ambiguous.stderr).toContain('--kind');
    const first = await rtcap(['init', 'https://abc.supabase.co', '--out', join(dir, 'h.yaml')]);
    expect(first.code).toBe(0);
    const again = await rtcap(['init', 'https://abc.supabase.co', '--out', join(dir, 'h.yaml')]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('--force');
  }, 60_000);
});
