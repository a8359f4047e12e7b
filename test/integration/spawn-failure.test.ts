/**
 * A generator process the system refuses to start, halfway through the pool's start, against
 * the built-in server with its Postgres: the run ends with one classified line and exit 3
 * (aborted), result.json says aborted and why, and nothing of the run is left — neither the two
 * generator processes already started, nor the server or its Postgres, nor its temp directory.
 *
 * A real EAGAIN cannot be produced here (root is not held to RLIMIT_NPROC), so the test-only
 * RTCAP_TEST_SPAWN_FAIL_AT=3 makes the third fork fail as EAGAIN does (src/load/test-spawn-fault).
 * The run's TMPDIR is this test's own, so "nothing left" is exact: no process whose environment
 * names it, nothing in it but rtcap's caches.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCache } from '../../src/builtin/pg-leftovers.js';
import { processesWithTmpdir } from '../support/run-processes.js';
import { tempDir } from '../support/temp-dir.js';

const BIN = resolve(import.meta.dirname, '../../bin/rtcap.js');
const work = tempDir('rtcap-spawn-fail-test-');
const runTmp = join(work, 'tmp');
const profile = join(work, 'profile.yaml');
const out = join(work, 'out');

beforeAll(() => {
  execFileSync('mkdir', ['-p', runTmp]);
  // The postgres system user (when run as root) must reach its data directory inside.
  chmodSync(work, 0o755);
  chmodSync(runTmp, 0o755);
  // A copy of a Postgres template already built spares this test the initdb (same key).
  const cached = readdirSync(tmpdir()).filter(
    (n) => /^rtcap-pgtemplate-[0-9a-f]{16}$/.test(n) && existsSync(join(tmpdir(), n, 'ready')),
  );
  for (const name of cached.slice(0, 3))
    execFileSync('cp', ['-a', join(tmpdir(), name), join(runTmp, name)]);
  writeFileSync(
    profile,
    [
      'name: spawn-fail',
      'scenario: broadcast-public',
      'target:',
      '  server: { database: true }',
      'load:',
      '  workers: 6',
      '  steps:',
      '    - { connections: 12, send_rate: 1, duration: 5s }',
      '',
    ].join('\n'),
  );
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Pids of processes whose environment has our TMPDIR: the run, its server, its Postgres. */
const processesOfTheRun = () => processesWithTmpdir(runTmp);

describe('a generator process that cannot start', () => {
  it(
    'process 3 of 6 refused (EAGAIN): exit 3, one line, result.json aborted, nothing left',
    {
      timeout: 120_000,
    },
    async () => {
      const child = spawn(process.execPath, [BIN, 'run', profile, '--out', out, '--no-progress'], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, TMPDIR: runTmp, RTCAP_TEST_SPAWN_FAIL_AT: '3' },
      });
      let stderr = '';
      child.stdout.resume();
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
      // What the scan sees while the run goes: it must find the run (else "none left" proves
      // nothing).
      const seen = new Set<number>();
      const killer = setTimeout(() => child.kill('SIGKILL'), 100_000);
      while (child.exitCode === null) {
        for (const pid of processesOfTheRun()) seen.add(pid);
        await new Promise((r) => setTimeout(r, 50));
      }
      const code = await exited;
      clearTimeout(killer);
      // At the moment the run exits, not later: a generator process left to itself goes too, a
      // little after it notices its coordinator is gone, which a later look would not see.
      const startedPids = [
        ...(/generator: stopped the \d+ process(?:es)? already started \(pids ([\d, ]+)\)/
          .exec(stderr)?.[1]
          .split(', ')
          .map(Number) ?? []),
      ];
      const aliveAtExit = startedPids.filter((pid) => existsSync(`/proc/${pid}`));

      expect(code, stderr).toBe(3);
      const line =
        "could not start generator process 3 of 6: EAGAIN (the system refused a new process: this user's process limit (ulimit -u), the cgroup's pids.max or kernel.pid_max is reached, or memory is short)";
      const lines = stderr.trim().split('\n');
      expect(lines.filter((l) => l.includes('could not start generator process'))).toEqual([
        `run aborted: ${line}`,
      ]);
      // The two processes started before the refused one, named by pid, killed and reaped.
      expect(startedPids, stderr).toHaveLength(2);
      expect(aliveAtExit).toEqual([]);
      const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as {
        status: string;
        abort_reason: string | null;
        steps: unknown[];
      };
      expect({ status: result.status, reason: result.abort_reason }).toEqual({
        status: 'aborted',
        reason: line,
      });

      expect(seen.has(child.pid!), 'the scan found the run while it went').toBe(true);
      // The built-in server and its Postgres were seen too (more than the coordinator alone).
      expect(seen.size).toBeGreaterThan(2);
      // Right at exit: every process of the run has been reaped (the generator processes by the
      // pool, the server and Postgres by its stop); a short grace for the kernel's bookkeeping.
      for (let i = 0; i < 10 && processesOfTheRun().length > 0; i++)
        await new Promise((r) => setTimeout(r, 100));
      expect(processesOfTheRun()).toEqual([]);
      expect(readdirSync(runTmp).filter((n) => !isCache(n))).toEqual([]);
    },
  );
});
