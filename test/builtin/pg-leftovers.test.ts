/**
 * "What is ours and dead" under a temp directory: judged on real directories and real
 * processes (a live one, one that has exited, a pid whose start time does not match).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  cleanTemp,
  isCache,
  kindOf,
  leftovers,
  ownerAlive,
  removeAbandonedBuilds,
  removeLeftover,
  tempEntries,
  writeOwner,
} from '../../src/builtin/pg-leftovers.js';
import { tempDir } from '../support/temp-dir.js';

const work = tempDir('rtcap-leftovers-test-');
const started: ChildProcess[] = [];
afterAll(() => {
  for (const c of started) c.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

function dirIn(parent: string, name: string): string {
  const d = join(parent, name);
  mkdirSync(d, { recursive: true });
  return d;
}

const exitedPid = () => spawnSync('true').pid!;

describe('kindOf', () => {
  it('names rtcap entries by prefix and nothing else', () => {
    expect(kindOf('rtcap-run-abc123')).toBe('run');
    expect(kindOf('rtcap-pg-Xy12')).toBe('pg');
    expect(kindOf('rtcap-pgtemplate-0123456789abcdef')).toBe('template');
    expect(kindOf('rtcap-pgbin-0123456789abcdef')).toBe('bin-cache');
    expect(kindOf('rtcap-pgbin-build-k2j3')).toBe('build');
    expect(kindOf('rtcap-pgtemplate-build-k2j3')).toBe('build');
    expect(kindOf('rtcap-signals-test-1')).toBe(null);
    expect(kindOf('systemd-private-1')).toBe(null);
    expect([isCache('rtcap-pgbin-0123456789abcdef'), isCache('rtcap-run-x')]).toEqual([
      true,
      false,
    ]);
  });
});

describe('owner records', () => {
  it('a live owner, a gone owner, and a reused pid', () => {
    const mine = dirIn(work, 'owner-live');
    writeOwner(mine);
    expect(ownerAlive(mine)).toBe(true);
    const gone = dirIn(work, 'owner-gone');
    writeFileSync(join(gone, 'owner.pid'), `${exitedPid()}\n`);
    expect(ownerAlive(gone)).toBe(false);
    // This process's pid with another start time: the pid was reused, the owner is gone.
    const reused = dirIn(work, 'owner-reused');
    writeFileSync(join(reused, 'owner.pid'), `${process.pid}\n1\n`);
    expect(ownerAlive(reused)).toBe(false);
    expect(ownerAlive(dirIn(work, 'owner-none'))).toBe(null);
  });
});

describe('leftovers and rtcap clean', () => {
  it(
    'removes what is dead, keeps what is live, counts caches apart',
    { timeout: 20_000 },
    async () => {
      const t = dirIn(work, 'tmp-clean');
      writeOwner(dirIn(t, 'rtcap-run-live'));
      const deadRun = dirIn(t, 'rtcap-run-dead');
      writeFileSync(join(deadRun, 'owner.pid'), `${exitedPid()}\n`);
      writeFileSync(join(deadRun, 'server-config.json'), '{}');
      const deadPg = dirIn(t, 'rtcap-pg-dead');
      writeFileSync(join(deadPg, 'owner.pid'), `${exitedPid()}\n`);
      const oldBuild = dirIn(t, 'rtcap-pgbin-build-old');
      utimesSync(oldBuild, new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
      dirIn(t, 'rtcap-pgbin-build-new');
      dirIn(t, 'rtcap-pgtemplate-0123456789abcdef');
      // A staged-binaries cache a process runs from is in use; another one is not.
      const usedCache = dirIn(t, 'rtcap-pgbin-00000000000000aa');
      copyFileSync('/bin/sleep', join(usedCache, 'sleep'));
      const user = spawn(join(usedCache, 'sleep'), ['30'], { stdio: 'ignore' });
      started.push(user);
      await new Promise((r) => user.once('spawn', r));
      dirIn(t, 'rtcap-pgbin-00000000000000bb');
      dirIn(t, 'not-ours');

      expect(
        leftovers(t)
          .map((e) => e.name)
          .sort(),
      ).toEqual(['rtcap-pg-dead', 'rtcap-pgbin-build-old', 'rtcap-run-dead']);
      const judged = Object.fromEntries(tempEntries(t).map((e) => [e.name, e.dead]));
      expect(judged).toEqual({
        'rtcap-run-live': false,
        'rtcap-run-dead': true,
        'rtcap-pg-dead': true,
        'rtcap-pgbin-build-old': true,
        'rtcap-pgbin-build-new': false,
        'rtcap-pgtemplate-0123456789abcdef': true,
        'rtcap-pgbin-00000000000000aa': false,
        'rtcap-pgbin-00000000000000bb': true,
      });

      const { removed, kept } = await cleanTemp(t);
      expect(removed.map((e) => e.name).sort()).toEqual([
        'rtcap-pg-dead',
        'rtcap-pgbin-00000000000000bb',
        'rtcap-pgbin-build-old',
        'rtcap-pgtemplate-0123456789abcdef',
        'rtcap-run-dead',
      ]);
      expect(kept.map((e) => e.name).sort()).toEqual([
        'rtcap-pgbin-00000000000000aa',
        'rtcap-pgbin-build-new',
        'rtcap-run-live',
      ]);
      expect([existsSync(deadRun), existsSync(usedCache), existsSync(join(t, 'not-ours'))]).toEqual(
        [false, true, true],
      );
    },
  );

  it('a cache build whose builder is gone is abandoned at once; a live builder keeps its own', () => {
    const t = dirIn(work, 'tmp-builds');
    // A server stopped while it staged the binaries: its record names a process that is gone.
    const stopped = dirIn(t, 'rtcap-pgbin-build-stopped');
    writeFileSync(join(stopped, 'owner.pid'), `${exitedPid()}\n`);
    writeFileSync(join(stopped, 'postgres'), 'half a copy');
    const building = dirIn(t, 'rtcap-pgtemplate-build-live');
    writeOwner(building);
    // No record (an older rtcap's build), and recent: still given BUILD_STALE_MS.
    const unowned = dirIn(t, 'rtcap-pgtemplate-build-unowned');
    expect(Object.fromEntries(tempEntries(t).map((e) => [e.name, [e.dead, e.why]]))).toEqual({
      'rtcap-pgbin-build-stopped': [true, 'an abandoned build'],
      'rtcap-pgtemplate-build-live': [false, 'being built'],
      'rtcap-pgtemplate-build-unowned': [false, 'being built'],
    });
    expect(removeAbandonedBuilds(t)).toEqual([stopped]);
    expect([existsSync(stopped), existsSync(building), existsSync(unowned)]).toEqual([
      false,
      true,
      true,
    ]);
  });

  it(
    "stops a postmaster still running from a dead run's data, and only one that names it",
    { timeout: 20_000 },
    async () => {
      const t = dirIn(work, 'tmp-postmaster');
      const run = dirIn(t, 'rtcap-run-orphan');
      writeFileSync(join(run, 'owner.pid'), `${exitedPid()}\n`);
      const root = dirIn(run, 'rtcap-pg-x');
      mkdirSync(join(root, 'data'));
      // Stands in for the postmaster: its command line names the data root, as postgres -D does.
      const pm = spawn(
        process.execPath,
        ['-e', 'setTimeout(() => {}, 30000)', join(root, 'data')],
        { stdio: 'ignore' },
      );
      started.push(pm);
      await new Promise((r) => pm.once('spawn', r));
      writeFileSync(join(root, 'data', 'postmaster.pid'), `${pm.pid}\n${join(root, 'data')}\n`);
      // A second root whose postmaster.pid names a process that is not its postmaster (a reused
      // pid).
      const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], {
        stdio: 'ignore',
      });
      started.push(other);
      await new Promise((r) => other.once('spawn', r));
      const root2 = dirIn(run, 'rtcap-pg-y');
      mkdirSync(join(root2, 'data'));
      writeFileSync(join(root2, 'data', 'postmaster.pid'), `${other.pid}\n`);
      const exited = new Promise<NodeJS.Signals | null>((r) =>
        pm.once('exit', (_c, sig) => r(sig)),
      );
      const [entry] = leftovers(t);
      expect(entry.name).toBe('rtcap-run-orphan');
      await removeLeftover(entry);
      expect(await exited).toBe('SIGQUIT');
      expect(existsSync(run)).toBe(false);
      expect(other.exitCode === null && other.signalCode === null).toBe(true);
    },
  );
});

describe("a name is no proof: a directory without rtcap's owner record", () => {
  const old = (d: string) => {
    const t = new Date(Date.now() - 2 * 86_400_000);
    utimesSync(d, t, t);
    return d;
  };
  const file = (d: string, name: string) => {
    mkdirSync(join(d, name, '..'), { recursive: true });
    writeFileSync(join(d, name), 'x');
  };

  it('is removed only when it holds nothing but what rtcap writes there', async () => {
    const t = dirIn(work, 'tmp-foreign');
    const runOld = dirIn(t, 'rtcap-run-old');
    for (const f of ['server-config.json', 'database-url', 'rtcap-pg-a/data/PG_VERSION'])
      file(runOld, f);
    const runNotes = dirIn(t, 'rtcap-run-notes');
    file(runNotes, 'rtcap-pg-a/notes.txt');
    const pgDeep = dirIn(t, 'rtcap-pg-deep');
    for (const f of ['data/PG_VERSION', 'data/important.sql', '.s.PGSQL.5432']) file(pgDeep, f);
    const tpl = dirIn(t, 'rtcap-pgtemplate-0123456789abcdef');
    for (const f of ['data/PG_VERSION', 'password', 'ready', 'photos/a.jpg']) file(tpl, f);
    const bins = dirIn(t, 'rtcap-pgbin-00000000000000cc');
    for (const f of ['node_modules/pg/index.js', 'ready']) file(bins, f);
    const many = dirIn(t, 'rtcap-pg-many');
    for (const f of ['a.sql', 'b.sql', 'c.sql', 'd.sql', 'e.sql']) file(many, f);
    // rtcap's owner record whose process is gone: rtcap's, whatever else is in it.
    const owned = dirIn(t, 'rtcap-pg-owned');
    writeFileSync(join(owned, 'owner.pid'), `${exitedPid()}\n`);
    file(owned, 'data/PG_VERSION');
    for (const d of [runOld, runNotes, pgDeep, tpl, bins, many, owned]) old(d);
    // Fresh and foreign: kept as being created (a run writes its record within a second).
    file(dirIn(t, 'rtcap-pg-fresh'), 'x.sql');

    const judged = Object.fromEntries(
      tempEntries(t).map((e) => [e.name, [e.dead, e.foreign, e.why]]),
    );
    const notOurs = (what: string) => [false, true, `not an rtcap data directory (holds ${what})`];
    expect(judged).toEqual({
      'rtcap-run-old': [true, false, 'no owner record'],
      'rtcap-run-notes': notOurs('rtcap-pg-a/notes.txt'),
      'rtcap-pg-deep': notOurs('data/important.sql'),
      'rtcap-pgtemplate-0123456789abcdef': notOurs('photos'),
      'rtcap-pgbin-00000000000000cc': [true, false, 'cache, unused'],
      'rtcap-pg-many': notOurs('a.sql, b.sql, c.sql and 2 more'),
      'rtcap-pg-owned': [true, false, 'its process is gone'],
      'rtcap-pg-fresh': [false, false, 'being created'],
    });
    // A run's own clean-up at start leaves them too.
    expect(
      leftovers(t)
        .map((e) => e.name)
        .sort(),
    ).toEqual(['rtcap-pg-owned', 'rtcap-run-old']);

    const dry = await cleanTemp(t, { dryRun: true });
    expect(dry.removed.map((e) => e.name).sort()).toEqual([
      'rtcap-pg-owned',
      'rtcap-pgbin-00000000000000cc',
      'rtcap-run-old',
    ]);
    expect([existsSync(runOld), existsSync(bins), existsSync(owned)]).toEqual([true, true, true]);
    await cleanTemp(t);
    expect([runOld, bins, owned].map(existsSync)).toEqual([false, false, false]);
    expect(
      [
        join(runNotes, 'rtcap-pg-a/notes.txt'),
        join(pgDeep, 'data/important.sql'),
        join(tpl, 'photos/a.jpg'),
        join(many, 'e.sql'),
        join(t, 'rtcap-pg-fresh/x.sql'),
      ].map(existsSync),
    ).toEqual([true, true, true, true, true]);
  });
});
