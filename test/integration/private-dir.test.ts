/**
 * As root (CI, containers), a checkout inside a private directory (mktemp -d: mode 0700)
 * still runs a profile that needs the built-in database: PostgreSQL runs as the postgres
 * system user, which cannot reach the checkout's binaries, so rtcap stages them where it can.
 *
 * The copy is hard links (cp -al: no data copied); what matters is that every path to the
 * binaries goes through the 0700 directory. The run's TMPDIR is the test's own, so the staged
 * binaries and the Postgres template go away with it.
 */
import { execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/temp-dir.js';

const ROOT = resolve(import.meta.dirname, '../..');
const isRoot = process.getuid?.() === 0;

const work = tempDir('rtcap-private-test-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe.skipIf(!isRoot)('a checkout inside a 0700 directory, as root', () => {
  it('runs a broadcast-private step on the built-in database', { timeout: 240_000 }, async () => {
    const priv = mkdtempSync(join(work, 'private-'));
    expect(statSync(priv).mode & 0o777).toBe(0o700);
    const pkg = join(priv, 'rtcap');
    execFileSync('mkdir', [pkg]);
    for (const part of ['bin', 'dist', 'node_modules', 'package.json'])
      execFileSync('cp', ['-al', join(ROOT, part), join(pkg, part)]);
    const runTmp = join(work, 'tmp');
    execFileSync('mkdir', ['-p', runTmp]);
    chmodSync(work, 0o755);
    chmodSync(runTmp, 0o755);
    // A template already built elsewhere spares the initdb (same key: build, flags, migration,
    // uid).
    for (const name of readdirSync(tmpdir())
      .filter(
        (n) => /^rtcap-pgtemplate-[0-9a-f]{16}$/.test(n) && existsSync(join(tmpdir(), n, 'ready')),
      )
      .slice(0, 3)) {
      // The template itself, not the link to it a test file's own temp dir holds.
      execFileSync('cp', ['-a', realpathSync(join(tmpdir(), name)), join(runTmp, name)]);
    }
    const profile = join(priv, 'profile.yaml');
    writeFileSync(
      profile,
      [
        'name: private-dir',
        'scenario: broadcast-private',
        'load:',
        '  join_rate: 50',
        '  warmup: 0s',
        '  drain: 1s',
        '  steps:',
        '    - { rooms: 2, members: 2, connections: 4, room_send_rate: 1, duration: 1s }',
        '',
      ].join('\n'),
    );
    const out = join(priv, 'out');
    const r = await new Promise<{ code: number | null; output: string }>((res) => {
      const child = spawn(
        process.execPath,
        [join(pkg, 'bin', 'rtcap.js'), 'run', profile, '--out', out, '--no-progress'],
        {
          cwd: pkg,
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, TMPDIR: runTmp },
        },
      );
      let output = '';
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
      const kill = setTimeout(() => child.kill('SIGKILL'), 200_000);
      child.on('exit', (code) => {
        clearTimeout(kill);
        res({ code, output });
      });
    });
    expect(r.output).toMatch(/database postgres:\/\/postgres:\*\*\*@/);
    expect(r.output).toMatch(/joined 4\/4/);
    const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as {
      status: string;
      steps: { connections: { joined: number } }[];
    };
    expect(result.status).toBe('completed');
    // The binaries were staged where the postgres user can run them, and nothing of the run is
    // left.
    const left = readdirSync(runTmp);
    expect(left.filter((n) => n.startsWith('rtcap-pgbin-') && !n.includes('build'))).toHaveLength(
      1,
    );
    expect(left.filter((n) => /^rtcap-(run|pg)-|^rtcap-pgbin-build-/.test(n))).toEqual([]);
  });
});
