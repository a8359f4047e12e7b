/**
 * A coordinator killed with SIGKILL cannot clean up: its built-in server must still go (it
 * watches its stdin pipe, which the kernel closes with the coordinator), and what it left under
 * the temp directory (its private rtcap-run-* directory) is removed by the next run's start.
 * The runs' TMPDIR is this test's own directory, so "left behind" is exact.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/temp-dir.js';

const BIN = resolve(import.meta.dirname, '../../bin/rtcap.js');
const work = tempDir('rtcap-kill9-test-');
const runTmp = join(work, 'tmp');
mkdirSync(runTmp);
chmodSync(work, 0o755);
chmodSync(runTmp, 0o755);
afterAll(() => rmSync(work, { recursive: true, force: true }));

function profile(durationS: number): string {
  const path = join(work, `p${durationS}.yaml`);
  writeFileSync(
    path,
    [
      'name: kill9',
      'scenario: broadcast-public',
      'target: { server: { database: false } }',
      'load:',
      '  join_rate: 100',
      '  drain: 1s',
      '  steps:',
      `    - { connections: 10, send_rate: 2, duration: ${durationS}s }`,
      '',
    ].join('\n'),
  );
  return path;
}

function start(args: string[]) {
  const child = spawn(process.execPath, [BIN, ...args, '--no-progress'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, TMPDIR: runTmp },
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, exited, stderr: () => stderr };
}

/** Pids of processes whose environment names our TMPDIR: the runs and their servers. */
function processesOfTheRuns(): number[] {
  const needle = `TMPDIR=${runTmp}\0`;
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .filter((n) => {
      try {
        return readFileSync(`/proc/${n}/environ`, 'latin1').includes(needle);
      } catch {
        return false;
      }
    })
    .map(Number);
}

const runDirs = () => readdirSync(runTmp).filter((n) => n.startsWith('rtcap-run-'));

async function until(cond: () => boolean, ms: number): Promise<boolean> {
  for (const t0 = Date.now(); Date.now() - t0 < ms; await new Promise((r) => setTimeout(r, 100)))
    if (cond()) return true;
  return cond();
}

describe('kill -9 of the coordinator', () => {
  it('takes its server with it, and the next run removes what it left', async () => {
    const first = start(['run', profile(60), '--out', join(work, 'a')]);
    expect(
      await until(() => /built-in server: /.test(first.stderr()), 90_000),
      first.stderr(),
    ).toBe(true);
    expect(runDirs()).toHaveLength(1);
    first.child.kill('SIGKILL');
    await first.exited;
    // The server exits on its own once its stdin pipe closes: bounded, seconds.
    expect(
      await until(() => processesOfTheRuns().length === 0, 15_000),
      `still running: ${processesOfTheRuns().join(', ')}`,
    ).toBe(true);
    // SIGKILL leaves the private directory: that is the fault the next run repairs.
    const left = runDirs();
    expect(left).toHaveLength(1);

    const second = start(['run', profile(1), '--out', join(work, 'b')]);
    const code = await second.exited;
    expect(code, second.stderr()).toBe(0);
    expect(second.stderr()).toContain(
      `removed 1 leftover of runs that are gone: ${join(runTmp, left[0])}`,
    );
    expect(runDirs()).toEqual([]);
    expect(processesOfTheRuns()).toEqual([]);
  }, 180_000);
});
