/**
 * `rtcap clean` on a TMPDIR of its own: the built CLI removes a dead run's directory and the
 * caches, keeps a live run's and a user's folder that merely carries rtcap's name, and says what
 * it did; `--dry-run` says what it would do and removes nothing.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
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

  it(
    "keeps a folder with rtcap's name that holds a user's file, removes a real leftover; --dry-run removes nothing",
    { timeout: 30_000 },
    () => {
      const t = join(work, 'tmp-foreign');
      mkdirSync(t);
      const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000);
      // A user's backup in a folder that merely carries rtcap's name: no owner record.
      const mine = join(t, 'rtcap-pg-mybackup');
      mkdirSync(mine);
      writeFileSync(join(mine, 'important.sql'), 'create table keep_me ();\n');
      // What a killed run of an older rtcap leaves: a Postgres root without an owner record.
      const left = join(t, 'rtcap-pg-Ab12Cd');
      mkdirSync(join(left, 'data', 'base', '1'), { recursive: true });
      mkdirSync(join(left, 'data', 'pg_wal'));
      writeFileSync(join(left, 'data', 'PG_VERSION'), '16\n');
      writeFileSync(join(left, 'data', 'postgresql.conf'), '');
      writeFileSync(join(left, 'data', 'base', '1', '1259'), '');
      writeFileSync(join(left, '.s.PGSQL.5432.lock'), '');
      for (const d of [mine, left]) utimesSync(d, twoDaysAgo, twoDaysAgo);
      const clean = (...args: string[]) =>
        spawnSync(process.execPath, [BIN, 'clean', ...args], {
          env: { ...process.env, TMPDIR: t },
          encoding: 'utf8',
          timeout: 15_000,
        });
      const keptLine = `kept ${mine}: not an rtcap data directory (holds important.sql)`;

      const dry = clean('--dry-run');
      expect(dry.status).toBe(0);
      expect(dry.stdout).toContain(`would remove ${left} (no owner record)`);
      expect(dry.stdout).toContain(keptLine);
      expect(dry.stderr).toBe(
        `rtcap clean --dry-run: 1 would be removed, 0 in use kept, 1 not rtcap's kept, under ${t}; nothing removed\n`,
      );
      expect([existsSync(left), existsSync(join(mine, 'important.sql'))]).toEqual([true, true]);

      const r = clean();
      expect(r.status).toBe(0);
      expect(r.stdout).toContain(`removed ${left} (no owner record)`);
      expect(r.stdout).toContain(keptLine);
      expect(r.stdout).not.toContain(`removed ${mine}`);
      expect(r.stderr).toBe(
        `rtcap clean: 1 removed, 0 in use kept, 1 not rtcap's kept, under ${t}\n`,
      );
      expect(existsSync(left)).toBe(false);
      expect(readFileSync(join(mine, 'important.sql'), 'utf8')).toBe('create table keep_me ();\n');
    },
  );
});
