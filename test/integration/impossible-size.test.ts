/**
 * More than this machine can hold — 10,000,000 connections (memory), 120,000,000,000 (loopback
 * source addresses past 127.255.255.254), 1,000,000 through an emulated link (the relay's two
 * descriptors per connection in rtcap's own process) — is refused before anything starts
 * (exit 2), one line naming what cannot fit with its numbers; no run directory, no process.
 */
import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readLimits } from '../../src/generator/limits.js';
import { tempDir } from '../support/temp-dir.js';

const ROOT = resolve(import.meta.dirname, '../..');
const work = tempDir('rtcap-huge-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** `rtcap run quickstart --set …` with its exit code, stderr lines and whether --out was made. */
async function refused(...sets: string[]) {
  const out = join(work, `run-${Math.random().toString(36).slice(2)}`);
  const args = [join(ROOT, 'bin/rtcap.js'), 'run', join(ROOT, 'profiles/quickstart.yaml')];
  for (const s of sets) args.push('--set', s);
  args.push('--out', out);
  const t0 = Date.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((r) => child.on('exit', r));
  return {
    code,
    stderr,
    ms: Date.now() - t0,
    lines: stderr.trim().split('\n'),
    outMade: existsSync(out),
  };
}

describe('a run this machine cannot hold', () => {
  it('10,000,000 connections: exit 2 at once, the numbers named, nothing started', async () => {
    const r = await refused('load.steps.0.connections=10000000');
    expect(r.code, r.stderr).toBe(2);
    expect(r.ms).toBeLessThan(20_000);
    expect(r.lines).toHaveLength(1);
    expect(r.lines[0]).toMatch(
      /^rtcap: load asks for 10,000,000 connections, more than this machine can hold — memory: at least [\d,]+ MB \(5\.5 KB per connection \+ 40 MB per process × [\d,]+ processes \+ the built-in server's 7 KB per connection\) > [\d,]+ MB available/,
    );
    // 1,417 loopback addresses fit in 127/8: no shortfall of source ports.
    expect(r.lines[0]).not.toMatch(/source ports/);
    expect(r.outMade).toBe(false);
  }, 40_000);

  it('loopback source addresses past 127.255.255.254: named', async () => {
    const r = await refused('load.steps.0.connections=120000000000');
    expect(r.code, r.stderr).toBe(2);
    expect(r.lines).toHaveLength(1);
    expect(r.lines[0]).toMatch(
      /source ports: [\d,]+ loopback source addresses needed, 127\.0\.0\.1–127\.255\.255\.254 has 16,777,214/,
    );
    expect(r.outMade).toBe(false);
  }, 40_000);

  const openFiles = readLimits().openFilesPerProcess;
  it.runIf(openFiles !== null && Number.isFinite(openFiles) && openFiles < 2_000_200)(
    `a link relaying 1,000,000 connections: 2 descriptors each in rtcap's process > ${openFiles}`,
    async () => {
      const r = await refused('load.steps.0.connections=1000000', 'generator.link={delay: 5ms}');
      expect(r.code, r.stderr).toBe(2);
      expect(r.lines).toHaveLength(1);
      expect(r.lines[0]).toContain(
        `open files: the link relay holds 2 descriptors per connection in rtcap's own process, 2 × 1,000,000 + 200 = 2,000,200 > its limit of ${openFiles!.toLocaleString('en-US')} (ulimit -n)`,
      );
      expect(r.outMade).toBe(false);
    },
    40_000,
  );
});
