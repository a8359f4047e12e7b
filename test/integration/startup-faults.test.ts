/**
 * A run that aborts while it starts always exits: a failure injected at each start-up stage
 * (src/run/test-fault.ts, RTCAP_TEST_FAIL_AT, tests only) ends the process with exit 3 within
 * seconds of its "run aborted" line, with every process of the run reaped and its temporary
 * directory empty. And `--server-cpus` naming a CPU this process may not use is refused before
 * anything starts (it used to abort after the built-in server was up, then never exit).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isCache } from '../../src/builtin/pg-leftovers.js';
import { FAULT_STAGES } from '../../src/run/test-fault.js';
import { allowedCpuList, parseCpuList } from '../../src/util/cpu-list.js';
import { processesWithTmpdir } from '../support/run-processes.js';
import { tempDir } from '../support/temp-dir.js';

const BIN = resolve(import.meta.dirname, '../../bin/rtcap.js');
const work = tempDir('rtcap-startup-faults-');
const profile = join(work, 'profile.yaml');
writeFileSync(
  profile,
  [
    'name: startup-faults',
    'scenario: broadcast-public',
    'target:',
    '  server: { database: false }',
    'load:',
    '  workers: 2',
    '  drain: 1s',
    '  steps:',
    '    - { connections: 4, send_rate: 1, duration: 2s }',
    '',
  ].join('\n'),
);
/** The longest a run may take from its "run aborted" line to its exit. */
const EXIT_WITHIN_MS = 5_000;

interface Ended {
  code: number | null;
  stderr: string;
  /** From the "run aborted" line (or the start, without one) to the exit. */
  afterAbortMs: number;
  tmp: string;
  out: string;
}

async function runWith(env: Record<string, string>, args: string[] = []): Promise<Ended> {
  const tmp = join(tempDir('rtcap-startup-faults-'), 'tmp');
  mkdirSync(tmp);
  const out = join(tmp, '..', 'out');
  const child = spawn(
    process.execPath,
    [BIN, 'run', profile, '--out', out, '--no-progress', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TMPDIR: tmp, ...env } },
  );
  let stderr = '';
  let abortedAt = Date.now();
  child.stdout.resume();
  child.stderr.on('data', (d: Buffer) => {
    if (!stderr.includes('run aborted') && (stderr + d.toString()).includes('run aborted'))
      abortedAt = Date.now();
    stderr += d.toString();
  });
  // A run that never exits fails the test (killed, code null) instead of hanging it.
  const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
  clearTimeout(killer);
  return { code, stderr, afterAbortMs: Date.now() - abortedAt, tmp, out };
}

/** Every process of the run reaped (a short grace for the kernel's bookkeeping). */
async function leftProcesses(tmp: string): Promise<number[]> {
  for (let i = 0; i < 10 && processesWithTmpdir(tmp).length > 0; i++)
    await new Promise((r) => setTimeout(r, 100));
  return processesWithTmpdir(tmp);
}

describe('a failure at each start-up stage', () => {
  for (const stage of FAULT_STAGES)
    it(
      `${stage}: exit 3 within seconds, result.json aborted, nothing left`,
      { timeout: 90_000 },
      async () => {
        const r = await runWith({ RTCAP_TEST_FAIL_AT: stage });
        const reason = `test fault at start-up stage ${stage} (RTCAP_TEST_FAIL_AT)`;
        expect(r.code, r.stderr).toBe(3);
        expect(r.stderr).toContain(`run aborted: ${reason}\n`);
        expect(r.afterAbortMs, r.stderr).toBeLessThan(EXIT_WITHIN_MS);
        const result = JSON.parse(readFileSync(join(r.out, 'result.json'), 'utf8')) as {
          status: string;
          abort_reason: string;
        };
        expect([result.status, result.abort_reason]).toEqual(['aborted', reason]);
        expect(await leftProcesses(r.tmp)).toEqual([]);
        expect(readdirSync(r.tmp).filter((n) => !isCache(n))).toEqual([]);
      },
    );
});

describe('--server-cpus', () => {
  it(
    'naming a CPU this process may not use: exit 2, one line, nothing started',
    { timeout: 60_000 },
    async () => {
      const allowed = allowedCpuList();
      const beyond = Math.max(...parseCpuList(allowed)!) + 1;
      const r = await runWith({}, ['--server-cpus', String(beyond)]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        `rtcap: --server-cpus ${beyond}: expected CPUs this process may run on (${allowed}); CPU ${beyond} is not among them\n`,
      );
      expect(existsSync(r.out)).toBe(false);
      expect(readdirSync(r.tmp)).toEqual([]);
    },
  );
});
