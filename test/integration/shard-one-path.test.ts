/**
 * One merge path: a run's own result (its coordinator built each step from its
 * processes' collections over IPC) and `rtcap merge` of that run's shard (the same
 * collections through the shard's JSON encoding, read back and merged) are the same steps,
 * figure for figure — the built-in server's CPU and memory, the generator host and the
 * timeline included, since they travel in the shard too. Binary in dist/ (npm run build first).
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/result/result.js';
import { readShard } from '../../src/shard/read.js';
import { tempDir } from '../support/temp-dir.js';

const BIN = resolve(import.meta.dirname, '../../bin/rtcap.js');

function rtcap(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((res) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    child.on('exit', (code) => res({ code, stderr }));
  });
}

const dir = tempDir('rtcap-one-path-');
const profile = join(dir, 'p.yaml');
writeFileSync(
  profile,
  [
    'name: one-path',
    'scenario: broadcast-public',
    'target: { vsn: "2.0.0", server: { database: false } }',
    'load: { join_rate: 100, drain: 2s, workers: 2, steps: [ { connections: 12, send_rate: 5, duration: 2s } ] }',
    'generator: { max_event_loop_lag_p99_ms: 2000, max_cpu_pct: 100, min_offered_ratio: 0.9 }',
    '',
  ].join('\n'),
);
const read = (d: string) => JSON.parse(readFileSync(join(d, 'result.json'), 'utf8')) as RunResult;

describe('one merge path', () => {
  it(
    "a run's own steps equal rtcap merge of its shard, resources included",
    { timeout: 120_000 },
    async () => {
      const run = await rtcap([
        'run',
        profile,
        '--segment',
        '0/1',
        '--run-name',
        'one',
        '--out',
        join(dir, 'run'),
        '--no-progress',
      ]);
      expect(run.code, run.stderr.split('\n').slice(-6).join('\n')).toBe(0);
      const shard = readShard(join(dir, 'run', 'shard.json'));
      expect(shard.resources?.serverSamples.length).toBeGreaterThan(0);
      expect(shard.resources?.hostSamples.length).toBeGreaterThan(0);
      const m = await rtcap(['merge', join(dir, 'run'), '--out', join(dir, 'merged')]);
      expect(m.code).toBe(0);
      const own = read(join(dir, 'run'));
      const merged = read(join(dir, 'merged'));
      expect(own.steps[0].messages.received).toBe(own.steps[0].messages.expected);
      expect(own.steps[0].server.cpu_pct).not.toBeNull();
      expect(own.steps[0].generator.host).not.toBeNull();
      expect(merged.steps).toEqual(own.steps);
      expect(merged.generator.workers).toBe(own.generator.workers);
    },
  );
});
