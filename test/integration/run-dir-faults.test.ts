/**
 * A run directory that cannot take the run: a disk that fills up mid-run (a 64 KB tmpfs as
 * --out) ends the run "aborted: disk full" (exit 3) with every file left parseable and no
 * temporary file behind; a read-only --out is refused before anything starts (exit 2), one line
 * naming the directory. Both need mount(8), so they run as root and are skipped, saying why,
 * where mounting is not permitted.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../support/phoenix-test-server.js';
import { rtcapProcess } from '../support/rtcap-process.js';
import { OUT_MARKER } from '../../src/run/out-dir.js';
import { tempDir } from '../support/temp-dir.js';

const work = tempDir('rtcap-rundir-test-');
const mounted: string[] = [];

/** Runs mount(8); null when done, else why it could not be (the tests that need it skip). */
function mount(args: string[], remount = false): string | null {
  try {
    execFileSync('mount', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    if (!remount) mounted.unshift(args[args.length - 1]);
    return null;
  } catch (e) {
    const err = e as { stderr?: Buffer; message: string };
    return `mount not permitted here: ${(err.stderr?.toString() || err.message).trim()}`;
  }
}

const full = join(work, 'full');
const roSource = join(work, 'ro-source');
const ro = join(work, 'ro');
for (const d of [full, roSource, ro]) mkdirSync(d);
const fullSkip = mount(['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', full]);
const roSkip = mount(['--bind', roSource, ro]) ?? mount(['-o', 'remount,bind,ro', ro], true);

afterAll(() => {
  for (const m of mounted) {
    try {
      execFileSync('umount', [m]);
    } catch {
      execFileSync('umount', ['-l', m]);
    }
  }
  rmSync(work, { recursive: true, force: true });
});

function profileFor(url: string, steps: number): string {
  const path = join(work, `p-${steps}.yaml`);
  writeFileSync(
    path,
    [
      'name: rundir',
      'scenario: broadcast-public',
      `target: { url: "${url}" }`,
      'load:',
      '  join_rate: 200',
      '  drain: 1s',
      '  steps:',
      ...Array.from(
        { length: steps },
        () => '    - { connections: 20, send_rate: 5, duration: 2s }',
      ),
      '',
    ].join('\n'),
  );
  return path;
}

const title = (what: string, skip: string | null) => (skip ? `${what} (skipped: ${skip})` : what);

describe('a run directory that cannot take the run', () => {
  it.skipIf(fullSkip !== null)(
    title('a full disk: aborted: disk full, exit 3, every file parseable, no temp file', fullSkip),
    async () => {
      const server = await startTestServer();
      try {
        // Each step's report.html (~30 KB) is written beside the last one: the second or third
        // step's copy no longer fits in 64 KB.
        const out = join(full, 'run');
        const r = await rtcapProcess([
          'run',
          profileFor(server.url, 4),
          '--out',
          out,
          '--no-progress',
        ]);
        expect(r.code, r.stderr).toBe(3);
        expect(r.stderr).toMatch(
          /^run aborted: disk full: no space left in \S+ \(ENOSPC writing /m,
        );
        expect(r.stderr).not.toMatch(/at \S+ \(file:|Uncaught|node:fs/);
        // Bounded: seconds on a quiet machine, under a minute at a load average of 28.
        expect(r.ms).toBeLessThan(120_000);
        const names = readdirSync(out);
        expect(names.filter((n) => n.startsWith('.') && n !== OUT_MARKER)).toEqual([]);
        // The last line names only files this run wrote, and says which it could not.
        const wrote = /^wrote \S+\/ \(([^)]*)\)(; not written: (.*))?$/m.exec(r.stderr);
        expect(wrote, r.stderr).not.toBeNull();
        for (const name of wrote![1].split(', ')) expect(names, r.stderr).toContain(name);
        expect(wrote![3], r.stderr).toBeDefined();
        const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as {
          status: string;
          abort_reason: string;
        };
        expect(result.status).toBe('aborted');
        expect(result.abort_reason).toMatch(/^disk full: /);
        const lines = readFileSync(join(out, 'timeseries.ndjson'), 'utf8').split('\n');
        expect(lines.pop()).toBe('');
        expect(lines.length).toBeGreaterThan(0);
        for (const l of lines) expect(() => JSON.parse(l)).not.toThrow();
      } finally {
        await server.close();
      }
    },
    180_000,
  );

  it.skipIf(roSkip !== null)(
    title('a read-only --out: exit 2 at once, one line naming the directory', roSkip),
    async () => {
      for (const out of [ro, join(ro, 'new', 'run')]) {
        const r = await rtcapProcess([
          'run',
          profileFor('ws://127.0.0.1:9/socket/websocket', 1),
          '--out',
          out,
        ]);
        expect(r.code, r.stderr).toBe(2);
        const lines = r.stderr.trim().split('\n');
        expect(lines).toHaveLength(1);
        expect(lines[0]).toContain(`--out ${out}`);
        expect(lines[0]).toMatch(/read-only file system/);
        expect(r.ms).toBeLessThan(15_000);
      }
      expect(readdirSync(roSource)).toEqual([]);
    },
    40_000,
  );
});
