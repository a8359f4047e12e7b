/**
 * The first run a newcomer makes: a shortened copy of profiles/quickstart.yaml (same shape,
 * tiny steps) against the built-in server, as `rtcap run … > summary.txt` runs it. The
 * results — table, chart and the closing capacity sentence — are on stdout; progress and
 * logs are on stderr, and never on stdout.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/temp-dir.js';

const ROOT = resolve(import.meta.dirname, '../..');

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((res) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin/rtcap.js'), ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGINT'), 90_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      res({ code, stdout, stderr });
    });
  });
}

describe('rtcap run profiles/quickstart.yaml (shortened)', () => {
  it('ends stdout with the capacity sentence; progress and logs only on stderr', async () => {
    const profile = parse(readFileSync(join(ROOT, 'profiles/quickstart.yaml'), 'utf8'));
    expect(profile.load.steps.length, 'the quickstart is a ramp').toBeGreaterThanOrEqual(3);
    profile.load.steps = [
      { connections: 10, send_rate: 2, duration: '1s' },
      { connections: 20, send_rate: 2, duration: '1s' },
    ];
    profile.load.drain = '2s';
    const dir = tempDir('rtcap-quickstart-');
    const path = join(dir, 'quickstart.yaml');
    writeFileSync(path, stringify(profile));

    const r = await run(['run', path, '--out', join(dir, 'run')]);
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout.trimEnd().split('\n');
    // The last line is the sentence: what was carried within the SLO, and what limited it.
    expect(out.at(-1)).toMatch(
      /^(The built-in server on this machine carried .* within the SLO \(first-receipt p95 ≤ 200 ms, 100% delivered; step \d: p95 .*\); .*\.|No step measured the server: .*\.)$/,
    );
    expect(r.stdout).toContain(
      'first-receipt p95 (log scale) vs deliveries/s, one marker per step:',
    );
    expect(r.stdout).toMatch(/^step +joined\/target/m);
    // Progress and logs are stderr's, never stdout's.
    expect(r.stderr).toContain('step 1/2:');
    expect(r.stderr).toContain('starting the built-in server');
    expect(r.stderr).toMatch(/wrote .*\/run\//);
    expect(r.stdout).not.toMatch(/starting the built-in server|step 1\/2|wrote |ramp \d/);
    expect(r.stderr).not.toContain('one marker per step');
  }, 120_000);
});
