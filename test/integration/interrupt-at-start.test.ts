/**
 * A signal during the start-up of `rtcap run` (while it reads its profile, long before the
 * built-in server starts) ends the run like any interrupt: the stopping line,
 * "run interrupted: … before the first step: nothing measured", exit 130, a readable result.json
 * (status interrupted, no steps) that `rtcap report` reads, and no process of the run left.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { processesWithTmpdir } from '../support/run-processes.js';
import { tempDir } from '../support/temp-dir.js';

const BIN = resolve(import.meta.dirname, '../../bin/rtcap.js');
const work = tempDir('rtcap-interrupt-start-');
const runTmp = join(work, 'tmp');
const profile = join(work, 'profile.yaml');
const out = join(work, 'out');
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('an interrupt at the very start of a run', () => {
  it('SIGINT while it reads its profile: exit 130, an interrupted result, nothing left', async () => {
    mkdirSync(runTmp, { recursive: true });
    execFileSync('mkfifo', [profile]);
    const profileText = [
      'name: interrupt-at-start',
      'scenario: broadcast-public',
      'target:',
      '  server: { database: false }',
      '  auth: { jwt_secret: a-secret-of-the-test-at-least-32-characters-long }',
      'load:',
      '  join_rate: 50',
      '  steps:',
      '    - { connections: 20, send_rate: 2, duration: 20s }',
      '',
    ].join('\n');
    const child = spawn(process.execPath, [BIN, 'run', profile, '--out', out, '--no-progress'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, TMPDIR: runTmp },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    // The profile is a named pipe: opening its write end waits for rtcap to open it to read
    // the profile, the signal comes then, and only then does rtcap get the profile's text.
    const writer = await Promise.race([
      open(profile, 'w'),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('never read')), 20_000)),
    ]);
    expect({ stdout, stderr }).toEqual({ stdout: '', stderr: '' });
    child.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 300));
    // Written whether or not rtcap is still there to read it (a closed pipe: EPIPE).
    await writer.writeFile(profileText).catch(() => undefined);
    await writer.close();
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const code = await exited;
    clearTimeout(killer);

    expect(code, stderr).toBe(130);
    expect(stderr).toContain('rtcap: stopping — writing what was measured');
    expect(stderr).toContain(
      'run interrupted: interrupted by the user (SIGINT) — interrupted before the first step: nothing measured',
    );
    // Interrupted before it started anything: no server was started.
    expect(stderr).not.toContain('starting the built-in server');
    const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as {
      status: string;
      steps: unknown[];
      abort_reason: string;
      profile: { name: string };
    };
    expect(result).toMatchObject({
      status: 'interrupted',
      steps: [],
      abort_reason: 'interrupted by the user (SIGINT)',
      profile: { name: 'interrupt-at-start' },
    });
    expect(readFileSync(join(out, 'result.json'), 'utf8')).not.toContain('a-secret-of-the-test');
    const summary = readFileSync(join(out, 'summary.md'), 'utf8');
    expect(summary).toContain('interrupted');
    // No server started: the target says so, and no note claims a server went unsampled.
    expect(summary).toContain(
      '| target | not started (the run stopped before the built-in server was up) — built-in server;',
    );
    expect(summary).not.toContain('not sampled (no local pid');
    expect(summary).not.toContain('shared this machine');
    const report = execFileSync(process.execPath, [BIN, 'report', out], { encoding: 'utf8' });
    expect(report).toContain('interrupted');
    // No process of the run left (the run's TMPDIR names them), by pid.
    for (let i = 0; i < 20 && processesWithTmpdir(runTmp).length > 0; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(processesWithTmpdir(runTmp)).toEqual([]);
  }, 60_000);
});
