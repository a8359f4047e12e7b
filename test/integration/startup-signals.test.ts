/**
 * A signal at any moment of a run against the built-in server (with its Postgres) ends the run
 * within seconds, with the signal's exit code (SIGINT 130, SIGTERM 143), nothing it started
 * still running and none of its temporary directories left.
 *
 * The run's TMPDIR is a directory of this test, so "nothing left" is exact: nothing but rtcap's
 * caches in it afterwards, and no process whose environment names it.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCache, kindOf } from '../../src/builtin/pg-leftovers.js';
import { processesWithTmpdir } from '../support/run-processes.js';
import { tempDir } from '../support/temp-dir.js';

const BIN = resolve(import.meta.dirname, '../../bin/rtcap.js');
/**
 * Generous: the bound the user sees is a few seconds; this machine is shared by parallel suites.
 */
const EXIT_BOUND_MS = 10_000;

const work = tempDir('rtcap-signals-test-');
const runTmp = join(work, 'tmp');
const profile = join(work, 'profile.yaml');

beforeAll(() => {
  execFileSync('mkdir', ['-p', runTmp]);
  // The postgres system user (when run as root) must reach its data directory inside.
  chmodSync(work, 0o755);
  chmodSync(runTmp, 0o755);
  // The Postgres template is a cache shared across runs; a copy of one already built spares
  // this test the build (the key is the same: PostgreSQL build, initdb flags, migration, uid).
  const cached = readdirSync(tmpdir()).filter(
    (n) => /^rtcap-pgtemplate-[0-9a-f]{16}$/.test(n) && existsSync(join(tmpdir(), n, 'ready')),
  );
  for (const name of cached.slice(0, 3))
    execFileSync('cp', ['-a', join(tmpdir(), name), join(runTmp, name)]);
  writeFileSync(
    profile,
    [
      'name: signals',
      'scenario: broadcast-public',
      'target:',
      '  server: { database: true }',
      'load:',
      '  join_rate: 20',
      '  warmup: 0s',
      '  steps:',
      '    - { connections: 40, send_rate: 2, duration: 20s }',
      '',
    ].join('\n'),
  );
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Pids of processes whose environment has our TMPDIR: the run, its server, its Postgres. */
const processesOfTheRun = () => processesWithTmpdir(runTmp);

/**
 * Everything in the run's TMPDIR but rtcap's caches (the Postgres template; the Postgres
 * binaries staged when this checkout sits in a directory the postgres user cannot reach),
 * which are kept between runs by design — and of the staged binaries, one key at most.
 */
function leftovers(): string[] {
  const names = readdirSync(runTmp);
  expect(names.filter((n) => kindOf(n) === 'bin-cache').length).toBeLessThanOrEqual(1);
  return names.filter((n) => !isCache(n));
}

function inPrivateDir(prefix: string): boolean {
  return readdirSync(runTmp)
    .filter((n) => n.startsWith('rtcap-run-'))
    .some((d) => {
      try {
        return readdirSync(join(runTmp, d)).some((n) => n.startsWith(prefix));
      } catch {
        return false;
      }
    });
}

async function runAndSignal(
  sig: 'SIGINT' | 'SIGTERM',
  when: (output: string, out: string) => boolean,
): Promise<{ code: number | null; exitMs: number; output: string }> {
  const out = join(work, `out-${Math.random().toString(36).slice(2)}`);
  const child = spawn(process.execPath, [BIN, 'run', profile, '--out', out, '--no-progress'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TMPDIR: runTmp },
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  for (let waited = 0; waited < 90_000 && child.exitCode === null; waited += 50) {
    if (when(output, out)) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  expect(child.exitCode, `the run ended before the moment to signal it:\n${output}`).toBe(null);
  const sentAt = Date.now();
  child.kill(sig);
  const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const code = await exited;
  clearTimeout(killer);
  return { code, exitMs: Date.now() - sentAt, output };
}

async function expectNothingLeft(): Promise<void> {
  // Processes the run killed may take a moment to be reaped by the kernel.
  for (let i = 0; i < 20 && processesOfTheRun().length > 0; i++)
    await new Promise((r) => setTimeout(r, 100));
  expect(processesOfTheRun()).toEqual([]);
  expect(leftovers()).toEqual([]);
}

describe('a signal at any moment of start-up or a step', () => {
  it('SIGTERM before the built-in server is ready: exit 143', { timeout: 120_000 }, async () => {
    const r = await runAndSignal('SIGTERM', (o) => o.includes('starting the built-in server'));
    expect({ code: r.code, fast: r.exitMs < EXIT_BOUND_MS }).toEqual({ code: 143, fast: true });
    await expectNothingLeft();
  });

  it('SIGINT while Postgres starts: exit 130', { timeout: 120_000 }, async () => {
    const r = await runAndSignal('SIGINT', () => inPrivateDir('rtcap-pg-'));
    expect({ code: r.code, fast: r.exitMs < EXIT_BOUND_MS }).toEqual({ code: 130, fast: true });
    await expectNothingLeft();
  });

  it('SIGTERM during the ramp: exit 143', { timeout: 120_000 }, async () => {
    const r = await runAndSignal('SIGTERM', (o) => o.includes('ramp 0 →'));
    expect({ code: r.code, fast: r.exitMs < EXIT_BOUND_MS }).toEqual({ code: 143, fast: true });
    await expectNothingLeft();
  });

  it('SIGINT mid-step: exit 130 with a readable partial result', { timeout: 120_000 }, async () => {
    let outDir = '';
    const r = await runAndSignal('SIGINT', (_o, out) => {
      outDir = out;
      try {
        return readFileSync(join(out, 'timeseries.ndjson'), 'utf8').includes('"phase":"steady"');
      } catch {
        return false;
      }
    });
    expect({ code: r.code, fast: r.exitMs < EXIT_BOUND_MS }).toEqual({ code: 130, fast: true });
    expect(
      (JSON.parse(readFileSync(join(outDir, 'result.json'), 'utf8')) as { status: string }).status,
    ).toBe('interrupted');
    await expectNothingLeft();
  });
});
