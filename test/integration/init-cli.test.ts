/**
 * `rtcap init` as a user runs it: the starter profile it writes for a self-hosted Realtime
 * (here `rtcap serve`) and for a plain Phoenix app (the Phoenix-protocol test server) runs as
 * written, shrunk only in size with --set, and every message is delivered.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/result/result.js';
import { DEV_JWT_SECRET } from '../../src/builtin/config.js';
import { startTestServer, type TestServer } from '../support/phoenix-test-server.js';
import { expectOneLine, smallSteps } from '../support/init-cli.js';
import { BIN, rtcapCli } from '../support/rtcap-process.js';
import { tempDir } from '../support/temp-dir.js';

const stops: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

function rtcap(
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 120_000,
  cwd?: string,
) {
  return rtcapCli(args, { env, timeoutMs, cwd });
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

const SMALL = smallSteps([20, 40, 40]);

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
  it('rtcap serve, init, the set-up as printed, run: every step stable, no metrics token asked', async () => {
    const port = await serve();
    const dir = tempDir('rtcap-init-');
    const url = `ws://127.0.0.1:${port}/socket/websocket`;
    const clean = { REALTIME_JWT_SECRET: '', REALTIME_METRICS_TOKEN: '' };
    const init = await rtcap(['init', url, '--kind', 'realtime'], clean, 60_000, dir);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).not.toContain('METRICS');
    expect(readFileSync(join(dir, 'rtcap.yaml'), 'utf8')).not.toContain('metrics');
    // Every command init printed, in order, in one shell: `npx rtcap` is this checkout's bin,
    // and the run gets the small steps and an --out (sizes only; the profile is init's).
    const commands = [...init.stdout.matchAll(/^\s+\$ (.+)$/gm)].map((m) => m[1]);
    expect(commands.some((c) => c.startsWith('export REALTIME_JWT_SECRET='))).toBe(true);
    expect(commands.at(-1)).toBe('npx rtcap run rtcap.yaml');
    const script = commands
      .map((c) => c.replace(/^npx rtcap /, `"${process.execPath}" "${BIN}" `))
      .map((c) => (c.includes(' run ') ? `${c} --out run --no-progress ${SMALL.join(' ')}` : c))
      .join(' && ');
    const shell = await new Promise<{ code: number | null; stderr: string }>((res) => {
      const child = spawn('bash', ['-c', script], {
        cwd: dir,
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, ...clean },
      });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      child.on('exit', (code) => res({ code, stderr }));
    });
    expect(shell.code, shell.stderr.slice(-2000)).toBe(0);
    const result = delivered(join(dir, 'run'));
    for (const s of result.steps) expect(s.verdict, s.verdict_reasons.join('; ')).toBe('stable');
    expect(result.target.server_sampling).toMatch(/listening on 127\.0\.0\.1:/);
    expect(readFileSync(join(dir, 'run', 'result.json'), 'utf8')).not.toContain(DEV_JWT_SECRET);
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
    // init's probe: one push, delivered to its one other member.
    const probed = server.stats.deliveries;
    expect(probed).toBe(1);
    const out = join(dir, 'run');
    const run = await rtcap(['run', profile, '--out', out, '--no-progress', ...SMALL]);
    expect(run.code, run.stderr.slice(-2000)).toBe(0);
    const result = delivered(out);
    expect(result.steps.reduce((n, s) => n + s.messages.received, 0)).toBe(
      server.stats.deliveries - probed,
    );
  }, 180_000);

  it('refuses, in one line and exit 2, what it cannot write', async () => {
    const dir = tempDir('rtcap-init-');
    const ambiguous = await rtcap([
      'init',
      'ws://127.0.0.1:4000/socket/websocket',
      '--out',
      join(dir, 'a.yaml'),
    ]);
    expectOneLine(ambiguous, 2, '--kind');
    const first = await rtcap(['init', 'https://abc.supabase.co', '--out', join(dir, 'h.yaml')]);
    expect(first.code).toBe(0);
    const again = await rtcap(['init', 'https://abc.supabase.co', '--out', join(dir, 'h.yaml')]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('--force');
  }, 60_000);
});
