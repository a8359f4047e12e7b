/**
 * Every numeric flag of every command refuses a bad value before anything starts: exit 2 and
 * one line naming the flag and what it accepts. The whole matrix runs through main() (nothing
 * may start: a run, a server, a pod manifest); one bad value per command also runs in the
 * built CLI, bounded in time, so a value that would hang (`--workers 0` waited forever) fails
 * the test instead.
 */
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cliInProcess } from '../support/cli-in-process.js';
import {
  cpuList,
  int,
  isoTime,
  num,
  outFile,
  port,
  usableCpus,
  wsUrl,
} from '../../src/cli/flags.js';
import { allowedCpuList, parseCpuList } from '../../src/util/cpu-list.js';
import { tempDir } from '../support/temp-dir.js';

const BIN = resolve(import.meta.dirname, '../../bin/rtcap.js');
const work = tempDir('rtcap-flags-test-');
const profile = join(work, 'p.yaml');
writeFileSync(
  profile,
  'name: p\nscenario: broadcast-public\ntarget: { url: ws://127.0.0.1:9/socket }\nload:\n  steps:\n    - { connections: 1, duration: 1s }\n',
);
const campaign = join(work, 'c.yaml');
writeFileSync(campaign, 'name: c\nentries:\n  - profile: p.yaml\n');
afterAll(() => rmSync(work, { recursive: true, force: true }));

afterEach(() => {
  process.exitCode = 0;
});
const runMain = (argv: string[]) => cliInProcess(...argv);

/**
 * Each command, the arguments it needs besides the flag, and its numeric flags (port: 0 is valid).
 */
const COMMANDS: {
  argv: string[];
  flags: Record<string, 'count' | 'port' | 'positive' | 'quota'>;
}[] = [
  {
    argv: ['run', profile],
    flags: { workers: 'count', 'metrics-port': 'port', 'dashboard-linger': 'quota' },
  },
  {
    argv: ['sweep', profile],
    flags: { workers: 'count', 'metrics-port': 'port', 'dashboard-linger': 'quota' },
  },
  { argv: ['quotas', profile], flags: { 'dashboard-linger': 'quota' } },
  { argv: ['dashboard', work], flags: { port: 'port' } },
  {
    argv: ['campaign', campaign],
    flags: {
      workers: 'count',
      'metrics-port': 'port',
      'dashboard-linger': 'quota',
      'cpu-safe-pct': 'positive',
      'mem-safe-pct': 'positive',
      'presence-quota': 'positive',
      'topic-updates': 'positive',
    },
  },
  {
    argv: ['capacity', work],
    flags: {
      'cpu-safe-pct': 'positive',
      'mem-safe-pct': 'positive',
      'presence-quota': 'positive',
      'topic-updates': 'positive',
    },
  },
  { argv: ['k8s', profile, '--image', 'rtcap:1'], flags: { agents: 'count', 'start-in': 'quota' } },
  {
    argv: ['serve'],
    flags: {
      port: 'port',
      workers: 'count',
      'max-concurrent-users': 'quota',
      'max-joins-per-second': 'quota',
      'max-events-per-second': 'quota',
      'max-presence-events-per-second': 'quota',
      'max-channels-per-client': 'quota',
      'max-payload-size-in-kb': 'quota',
      'max-client-presence-events-per-window': 'quota',
      'client-presence-window-ms': 'quota',
      'db-pool': 'quota',
      'subs-pool-size': 'quota',
      'idle-timeout-ms': 'quota',
      'rate-tick-ms': 'quota',
    },
  },
];

const BAD: Record<'count' | 'port' | 'positive' | 'quota', string[]> = {
  count: ['abc', '0', '-1', '1e12', '2.5', ''],
  port: ['abc', '-1', '65536', '99999999999'],
  positive: ['abc', '0', '-1', '1e12'],
  quota: ['abc', '-1', '1e12', '1.5'],
};

describe('every numeric flag refuses a bad value: exit 2, one line naming it', () => {
  for (const { argv, flags } of COMMANDS) {
    for (const [flag, kind] of Object.entries(flags)) {
      it(`${argv[0]} --${flag}`, async () => {
        for (const bad of BAD[kind]) {
          const r = await runMain([...argv, `--${flag}`, bad]);
          expect({ bad, code: r.code }).toEqual({ bad, code: 2 });
          expect(r.err.trimEnd().split('\n'), r.err).toHaveLength(1);
          expect(r.err).toMatch(
            new RegExp(
              `^rtcap: --${flag}( ${bad.replace(/[.+]/g, '\\$&')})?: (expected|needs a value)`,
            ),
          );
        }
      });
    }
  }
});

/** Runs the built CLI; killed after `boundMs` (a hang fails the test, it does not hold it). */
function spawnCli(
  argv: string[],
  boundMs = 30_000,
): Promise<{ code: number | null; err: string; ms: number }> {
  return new Promise((done) => {
    const t0 = Date.now();
    const child = spawn(process.execPath, [BIN, ...argv], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, TMPDIR: work },
    });
    let e = '';
    child.stderr.on('data', (d) => (e += d));
    const killer = setTimeout(() => child.kill('SIGKILL'), boundMs);
    child.on('exit', (code) => {
      clearTimeout(killer);
      done({ code, err: e, ms: Date.now() - t0 });
    });
  });
}

describe('the built CLI, bounded', () => {
  const cases: [string[], string][] = [
    [['run', profile, '--workers', '0'], '--workers 0: expected a whole number from 1 to 1,024'],
    [
      ['run', profile, '--workers', 'abc'],
      '--workers abc: expected a whole number from 1 to 1,024',
    ],
    [
      ['sweep', profile, '--metrics-port', '-1'],
      '--metrics-port -1: expected a port number from 0 to 65535',
    ],
    [
      ['campaign', campaign, '--cpu-safe-pct', '1e12'],
      '--cpu-safe-pct 1e12: expected a number above 0 and at most 100',
    ],
    [['capacity', work, '--topic-updates', '0'], '--topic-updates 0: expected a number above 0'],
    [
      ['k8s', profile, '--image', 'x', '--agents', '-1'],
      '--agents -1: expected a whole number from 1 to 1,000',
    ],
    [['serve', '--port', 'abc'], '--port abc: expected a port number from 0 to 65535'],
    // Once ignored without --dashboard (the run started) and read as NaN with it.
    [
      ['run', profile, '--dashboard-linger', 'abc'],
      '--dashboard-linger abc: expected a whole number from 0 to 86,400',
    ],
    [['dashboard', work, '--port', 'abc'], '--port abc: expected a port number from 0 to 65535'],
    [['serve', '--workers', '0'], '--workers 0: expected a whole number from 1 to 256'],
  ];
  // One at a time: this machine is shared; a hang is killed at the bound and fails on its code.
  it.each(cases)('%j', { timeout: 40_000 }, async (argv, line) => {
    const r = await spawnCli(argv);
    expect({ code: r.code, line: r.err.startsWith(`rtcap: ${line}`) }, r.err).toEqual({
      code: 2,
      line: true,
    });
    expect(r.err.trimEnd().split('\n')).toHaveLength(1);
  });
});

describe('the rules', () => {
  it('int, num, port', () => {
    expect([int(1, 10)('3'), int(1, 10)('1e1'), int(1, 10)(' 4 ')]).toEqual([3, 10, 4]);
    expect(int(1, 10)('0x5')).toEqual({ problem: 'expected a whole number from 1 to 10' });
    expect([num(0, 100)('0.5'), num(0, 100)('100')]).toEqual([0.5, 100]);
    expect(num(0, 100)('Infinity')).toHaveProperty('problem');
    expect([port('0'), port('65535')]).toEqual([0, 65535]);
  });

  it('cpu lists, times', () => {
    expect([cpuList('0'), cpuList('0-3,5')]).toEqual(['0', '0-3,5']);
    expect(cpuList('0-')).toHaveProperty('problem');
    // Only CPUs this process may run on (its affinity): taskset would fail on any other.
    const on = usableCpus(() => '0-1,4');
    expect([on('0'), on('1,4'), on('0-1')]).toEqual(['0', '1,4', '0-1']);
    expect(on('99')).toEqual({
      problem: 'expected CPUs this process may run on (0-1,4); CPU 99 is not among them',
    });
    expect(on('1-3')).toEqual({
      problem: 'expected CPUs this process may run on (0-1,4); CPU 2, 3 are not among them',
    });
    expect(on('3-1')).toHaveProperty('problem');
    expect(parseCpuList('0,2-4,2')).toEqual([0, 2, 3, 4]);
    expect(parseCpuList(allowedCpuList())!.length).toBeGreaterThan(0);
    expect(isoTime('2026-12-01T19:00:00Z')).toBe('2026-12-01T19:00:00Z');
    expect(isoTime('tomorrow')).toHaveProperty('problem');
  });

  it('files to write: not a directory, in a directory that exists', () => {
    expect(outFile(join(work, 'new.md'))).toBe(join(work, 'new.md'));
    expect(outFile(profile)).toBe(profile);
    expect(outFile(work)).toEqual({ problem: 'is a directory, expected a file to write' });
    expect(outFile(join(work, 'nodir', 'x.md'))).toEqual({
      problem: `no directory ${join(work, 'nodir')} to write it in`,
    });
    expect(outFile(join(profile, 'x.md'))).toEqual({
      problem: `no directory ${profile} to write it in`,
    });
  });

  it('URLs: WebSocket only, a valid port, the Supabase form suggested', () => {
    expect(wsUrl('wss://x.example/socket')).toBe('wss://x.example/socket');
    expect(wsUrl('https://abcdefgh.supabase.co')).toEqual({
      problem:
        'expected a WebSocket URL: for a Supabase project, wss://abcdefgh.supabase.co/realtime/v1/websocket',
    });
    expect(wsUrl('http://localhost:4000/socket')).toEqual({
      problem: 'expected ws:// or wss:// (the WebSocket form: ws://localhost:4000/socket…)',
    });
    expect(wsUrl('ws://localhost:99999/socket')).toHaveProperty('problem');
  });
});
