import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOCK_FILE, liveHolder, lockOutDir, OutDirLocked } from '../../src/run/out-lock.js';
import { RunWriter } from '../../src/run/output.js';
import { prepareOutDir } from '../../src/run/out-dir.js';
import { tempDir } from '../support/temp-dir.js';

const dir = () => tempDir('rtcap-lock-');
/** A pid that existed and is gone: a process that has exited and been reaped. */
const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid!;

describe('lockOutDir', () => {
  it('writes our pid, and release removes it', () => {
    const d = dir();
    const release = lockOutDir(d);
    expect(JSON.parse(readFileSync(join(d, LOCK_FILE), 'utf8')).pid).toBe(process.pid);
    release();
    expect(existsSync(join(d, LOCK_FILE))).toBe(false);
  });

  it('refuses a directory a live process holds, naming it', () => {
    const d = dir();
    // pid 1 is alive on every Linux system.
    writeFileSync(
      join(d, LOCK_FILE),
      JSON.stringify({ pid: 1, host: hostname(), started_at: '2026-01-01T00:00:00.000Z' }),
    );
    expect(() => lockOutDir(d)).toThrow(OutDirLocked);
    expect(() => lockOutDir(d)).toThrow(
      /in use by another rtcap run \(pid 1, started 2026-01-01T00:00:00.000Z\)/,
    );
    expect(prepareOutDir(d, true)).toMatch(/^--out .*: in use by another rtcap run \(pid 1,/);
  });

  it('takes over the lock of a dead process', () => {
    const d = dir();
    const pid = deadPid();
    writeFileSync(join(d, LOCK_FILE), JSON.stringify({ pid, host: hostname(), started_at: 'x' }));
    expect(liveHolder(d)).toBeNull();
    // A stale lock alone is an empty directory.
    expect(prepareOutDir(d, false)).toBeNull();
    lockOutDir(d)();
  });
});

describe('RunWriter.forRun', () => {
  it('moves a default run directory held by another run to the next name', () => {
    const reports = dir();
    const held = join(reports, 'id');
    new RunWriter(held);
    writeFileSync(
      join(held, LOCK_FILE),
      JSON.stringify({ pid: 1, host: hostname(), started_at: 'x' }),
    );
    // Held by a live process but created after our existence check: the next name.
    const w = RunWriter.forRun(undefined, reports, 'id');
    expect(w.dir).toBe(join(reports, 'id-2'));
    w.release();
  });
});
