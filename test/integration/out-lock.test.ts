/**
 * Two runs started at the same moment with one --out: the first writes its run, the second is
 * refused at once (exit 2) naming the process that holds the directory, and nothing of it is
 * written there.
 */
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../support/phoenix-test-server.js';
import { OUT_MARKER } from '../../src/run/out-dir.js';
import { tempDir } from '../support/temp-dir.js';

const BIN = resolve(import.meta.dirname, '../../bin/rtcap.js');
const work = tempDir('rtcap-lock-test-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

function rtcap(args: string[]): Promise<{ code: number | null; stderr: string; ms: number }> {
  const t0 = Date.now();
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((r) => child.on('exit', (code) => r({ code, stderr, ms: Date.now() - t0 })));
}

describe('one --out, two runs', () => {
  it('the second run is refused naming the holder; the first run is whole', async () => {
    const server = await startTestServer();
    try {
      const profile = join(work, 'p.yaml');
      writeFileSync(
        profile,
        [
          'name: lock',
          'scenario: broadcast-public',
          `target: { url: "${server.url}" }`,
          'load:',
          '  join_rate: 100',
          '  drain: 1s',
          '  steps:',
          '    - { connections: 10, send_rate: 2, duration: 3s }',
          '',
        ].join('\n'),
      );
      const out = join(work, 'out');
      const first = rtcap(['run', profile, '--out', out, '--no-progress']);
      // The first holds the lock as soon as its directory exists; the second starts after that.
      for (let i = 0; i < 200 && !readdirSync(work).includes('out'); i++)
        await new Promise((r) => setTimeout(r, 25));
      await new Promise((r) => setTimeout(r, 200));
      const second = await rtcap(['run', profile, '--out', out, '--no-progress']);
      expect(second.code).toBe(2);
      expect(second.stderr.trim().split('\n')).toHaveLength(1);
      expect(second.stderr).toMatch(/in use by another rtcap run \(pid \d+, started /);
      const a = await first;
      expect(a.code, a.stderr).toBe(0);
      const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as {
        status: string;
        run_id: string;
      };
      expect(result.status).toBe('completed');
      // One run's lines only (two runs' would repeat seconds), and no lock left behind.
      const seconds = readFileSync(join(out, 'timeseries.ndjson'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { t: number }).t);
      expect(seconds.length).toBeGreaterThan(2);
      expect(seconds.every((t, i) => i === 0 || t > seconds[i - 1])).toBe(true);
      // Hidden files: rtcap's marker of a run directory only (run/out-dir.ts).
      expect(readdirSync(out).filter((n) => n.startsWith('.'))).toEqual([OUT_MARKER]);
    } finally {
      await server.close();
    }
  }, 60_000);
});
