/**
 * 10,000,000 connections asked on this machine: refused before anything starts (exit 2), one
 * line naming what cannot fit with its numbers; no run directory, no generator process.
 */
import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/temp-dir.js';

const ROOT = resolve(import.meta.dirname, '../..');
const work = tempDir('rtcap-huge-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('a run this machine cannot hold', () => {
  it('10,000,000 connections: exit 2 at once, the numbers named, nothing started', async () => {
    const out = join(work, 'run');
    const args = [
      join(ROOT, 'bin/rtcap.js'),
      'run',
      join(ROOT, 'profiles/quickstart.yaml'),
      '--set',
      'load.steps.0.connections=10000000',
      '--out',
      out,
    ];
    const t0 = Date.now();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    expect(code, stderr).toBe(2);
    expect(Date.now() - t0).toBeLessThan(20_000);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^rtcap: load asks for 10,000,000 connections, more than this machine can hold — memory: at least [\d,]+ MB \(7\.5 KB per connection \+ 40 MB per process × [\d,]+ processes\) > [\d,]+ MB available/,
    );
    expect(lines[0]).toMatch(
      /source ports: [\d,]+ loopback source addresses needed, 127\.0\.0\.x has 254/,
    );
    expect(existsSync(out)).toBe(false);
  }, 40_000);
});
