/**
 * One generator process asked for more connections than its open-file limit allows
 * (`prlimit --nofile=1024`, 1,200 connections): the step finishes, every connection is either
 * joined or counted as failed with EMFILE, the failures name the limit with its number, and the
 * step is generator-bound with that cause first — never a crash of the generator process
 * (Node's memory sampling itself needs a descriptor: EMFILE in uv_resident_set_memory).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TimeseriesPoint } from '../../src/result/timeseries-point.js';
import type { RunResult } from '../../src/result/result.js';
import { DEV_JWT_SECRET } from '../../src/builtin/config.js';
import { BIN, startServeProcess } from '../support/rtcap-process.js';
import { tempDir } from '../support/temp-dir.js';

const work = tempDir('rtcap-nofile-');
let serve: ChildProcess | null = null;
afterAll(() => {
  serve?.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

const hasPrlimit = spawnSync('prlimit', ['--version']).status === 0;
const CONNECTIONS = 1_200;
const EMFILE = 'generator: EMFILE (open-file limit reached: 1,024 per process)';

describe('more connections than the open-file limit of the one generator process', () => {
  it.skipIf(!hasPrlimit)(
    'the step finishes with the failures counted as that limit',
    async () => {
      const started = await startServeProcess();
      serve = started.child;
      const profile = join(work, 'nofile.yaml');
      writeFileSync(
        profile,
        [
          'name: nofile',
          'scenario: broadcast-public',
          `target: { url: "ws://127.0.0.1:${started.port}/socket/websocket", auth: { jwt_secret: ${DEV_JWT_SECRET} } }`,
          'load:',
          '  join_rate: 600',
          '  drain: 2s',
          `  steps: [{ connections: ${CONNECTIONS}, send_rate: 1, duration: 2s }]`,
          'generator: { max_event_loop_lag_p99_ms: 2000, max_cpu_pct: 100, min_offered_ratio: 0.1 }',
        ].join('\n'),
      );
      const out = join(work, 'run');
      const args = ['--nofile=1024:1024', process.execPath, BIN, 'run', profile];
      const child = spawn('prlimit', [...args, '--workers', '1', '--out', out], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      const code = await new Promise<number | null>((r) => child.on('exit', r));
      expect(stderr).not.toMatch(/uv_resident_set_memory|generator process failed/);
      expect(code, stderr).toBe(0);
      const r = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as RunResult;
      expect(r.status).toBe('completed');
      const step = r.steps[0];
      const c = step.connections!;
      // Every connection is accounted for: joined, or failed at the limit.
      expect(c.failed).toBeGreaterThan(0);
      expect(c.joined + c.failed).toBe(CONNECTIONS);
      expect(step.errors).toEqual({ [EMFILE]: c.failed });
      expect(step.error_classes?.generator).toBe(c.failed);
      expect(step.verdict).toBe('generator-bound');
      expect(step.verdict_reasons[0]).toBe(
        `generator-side errors: EMFILE ×${c.failed.toLocaleString('en-US')} (open-file limit 1,024 per process)`,
      );
      expect(readFileSync(join(out, 'summary.md'), 'utf8')).toContain(EMFILE);
      // Each second counts its failures at the limit by errno, and the live line names the limit
      // as it happens, in the capacity row's words, with this process's number.
      const points = readFileSync(join(out, 'timeseries.ndjson'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as TimeseriesPoint);
      const atLimit = points.reduce((n, p) => n + (p.generator_os_errors?.EMFILE ?? 0), 0);
      expect(atLimit).toBeGreaterThan(0);
      expect(atLimit).toBe(points.reduce((n, p) => n + p.errors, 0));
      expect(stderr).toContain(
        "· environment limit: rtcap's generator process open-file limit 1,024 · joined",
      );
    },
    120_000,
  );
});
