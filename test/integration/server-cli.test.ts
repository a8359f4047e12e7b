/**
 * `rtcap serve` as a process (src/cli/serve.ts through src/cli/main.ts): the one-line ready
 * JSON that `rtcap run` reads, quota flags, config errors, a clean SIGTERM shutdown, and CPU
 * profiles from every process of --workers.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { RawClient } from '../server/helpers.js';
import { tempDir } from '../support/temp-dir.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});

function serveProcess(
  args: string[],
  nodeFlags: string[] = [],
): {
  child: ChildProcess;
  lines: string[];
  stderr: () => string;
  exit: Promise<number | null>;
} {
  const script = `const { main } = await import(${JSON.stringify(new URL('../../src/cli/main.ts', import.meta.url).href)}); await main(${JSON.stringify(['serve', ...args])});`;
  const argv = [...nodeFlags, '--import', 'tsx', '--input-type=module', '-e', script];
  const child = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const lines: string[] = [];
  let err = '';
  createInterface({ input: child.stdout! }).on('line', (l) => lines.push(l));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, lines, stderr: () => err, exit };
}

async function readyLine(
  p: ReturnType<typeof serveProcess>,
  timeoutMs = 30_000,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  while (p.lines.length === 0) {
    if (Date.now() > deadline || p.child.exitCode !== null)
      throw new Error(`no ready line; stderr: ${p.stderr()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return JSON.parse(p.lines[0]) as Record<string, unknown>;
}

describe('rtcap serve', () => {
  it('prints exactly one ready line, applies quota flags, and exits 0 on SIGTERM', async () => {
    const p = serveProcess([
      '--port',
      '0',
      '--ready-json',
      '--no-database',
      '--max-channels-per-client',
      '1',
      '--channel-error-backoff-ms',
      '0',
    ]);
    const ready = await readyLine(p);
    expect(ready).toEqual({
      event: 'ready',
      port: expect.any(Number),
      pid: p.child.pid,
      workers: 1,
      url: `ws://127.0.0.1:${ready.port}/socket/websocket`,
      database: null,
    });
    const c = await RawClient.open(ready.port as number, { vsn: '2.0.0' });
    c.send(['1', '1', 'realtime:a', 'phx_join', {}]);
    c.send(['2', '2', 'realtime:b', 'phx_join', {}]);
    expect(
      ((await c.v2('phx_reply', '2'))[4] as { response: { reason: string } }).response.reason,
    ).toBe('ChannelRateLimitReached: Too many channels');
    p.child.kill('SIGTERM');
    expect(await p.exit).toBe(0);
    expect(await c.closed()).toBe(1001);
    expect(p.lines).toHaveLength(1);
  });

  it('runs --workers 2 behind one ready line', async () => {
    const p = serveProcess(['--port', '0', '--ready-json', '--no-database', '--workers', '2']);
    const ready = await readyLine(p);
    expect(ready).toMatchObject({ event: 'ready', workers: 2, database: null });
    const c = await RawClient.open(ready.port as number, { vsn: '2.0.0' });
    c.send([null, 'hb', 'phoenix', 'heartbeat', {}]);
    await c.v2('phx_reply', 'hb');
    p.child.kill('SIGTERM');
    expect(await p.exit).toBe(0);
  });

  it('writes a CPU profile of the primary and of every worker on SIGINT (node --cpu-prof)', async () => {
    const dir = tempDir('rtcap-serve-prof-');
    const p = serveProcess(
      ['--port', '0', '--ready-json', '--no-database', '--workers', '2'],
      ['--cpu-prof', `--cpu-prof-dir=${dir}`],
    );
    const ready = await readyLine(p);
    const c = await RawClient.open(ready.port as number, { vsn: '2.0.0' });
    c.send([null, 'hb', 'phoenix', 'heartbeat', {}]);
    await c.v2('phx_reply', 'hb');
    p.child.kill('SIGINT');
    expect(await p.exit).toBe(0);
    // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile; the loader's thread may write its own.
    const profiles = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
    const pids = new Set(profiles.map((f) => Number(f.split('.')[3])));
    expect(pids.size).toBe(3);
    expect(pids.has(p.child.pid!)).toBe(true);
    for (const f of profiles) {
      const prof = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { nodes: unknown[] };
      expect(prof.nodes.length).toBeGreaterThan(0);
    }
  });

  it('exits 2 with the field path on a bad config file', async () => {
    const dir = tempDir('rtcap-serve-');
    const file = join(dir, 'tenant.yaml');
    writeFileSync(file, 'max_events_per_second: -1\n');
    const p = serveProcess(['--port', '0', '--ready-json', '--no-database', '--config', file]);
    expect(await p.exit).toBe(2);
    expect(p.stderr()).toContain('max_events_per_second');
    expect(p.lines).toEqual([]);
  });
});
