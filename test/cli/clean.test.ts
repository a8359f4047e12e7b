/**
 * `rtcap clean` on a TMPDIR of its own: the built CLI removes a dead run's directory and the
 * caches, keeps a live run's, and says what it did.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/temp-dir.js';

const BIN = resolve(import.meta.dirname, '../../bin/rtcap.js');
const work = tempDir('rtcap-clean-test-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('rtcap clean', () => {
  it('removes leftovers of dead runs and the caches; keeps a live run', { timeout: 20_000 }, () => {
    const dead = join(work, 'rtcap-run-dead1');
    const live = join(work, 'rtcap-run-live1');
    const cache = join(work, 'rtcap-pgtemplate-0123456789abcdef');
    for (const d of [dead, live, cache]) mkdirSync(d);
    writeFileSync(join(dead, 'owner.pid'), `${spawnSync('true').pid}\n`);
    writeFileSync(join(live, 'owner.pid'), `${process.pid}\n`);
    const r = spawnSync(process.execPath, [BIN, 'clean'], {
      env: { ...process.env, TMPDIR: work },
      encoding: 'utf8',
      timeout: 15_000,
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`removed ${dead} (its process is gone)`);
    expect(r.stdout).toContain(`kept ${live} (its process runs)`);
    expect(r.stderr).toBe(`rtcap clean: 2 removed, 1 in use kept, under ${work}\n`);
    expect([existsSync(dead), existsSync(cache), existsSync(live)]).toEqual([false, false, true]);
  });
});
