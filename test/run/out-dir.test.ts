/**
 * What `--force` may delete (run/out-dir.ts): an earlier run's directory and nothing else —
 * never a link's target, a home directory, the working directory, the profile's folder or a git
 * checkout, and never a directory holding files a run does not write.
 */
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  OUT_MARKER,
  OutDirRefused,
  isRunDir,
  markOutDir,
  prepareOutDir,
  protectedPlace,
  removeRunDir,
} from '../../src/run/out-dir.js';
import { RunWriter } from '../../src/run/output.js';
import { RESULT_SCHEMA } from '../../src/result/result.js';
import { tempDir } from '../support/temp-dir.js';

/** A directory holding the given files (name → text). */
function dirWith(files: Record<string, string>): string {
  const d = tempDir('rtcap-outdir-');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(d, name, '..'), { recursive: true });
    writeFileSync(join(d, name), text);
  }
  return d;
}
const oldResult = JSON.stringify({ schema: RESULT_SCHEMA, steps: [] });
/** A run written by this rtcap: its marker and its files. */
const markedRun = () =>
  dirWith({ [OUT_MARKER]: 'x', 'result.json': '{}', 'summary.md': '# old', 'server.log': 'l' });

describe('prepareOutDir --force', () => {
  it("replaces a run rtcap marked, deleting the run's files", () => {
    const d = markedRun();
    expect(prepareOutDir(d, true)).toBeNull();
    // The marker stays: the directory is about to hold a run again.
    expect(readdirSync(d)).toEqual([OUT_MARKER]);
  });

  it('replaces an older run recognised by a result.json of the schema (no marker)', () => {
    const d = dirWith({ 'result.json': oldResult, 'timeseries.ndjson': '', 'report.html': '' });
    expect(isRunDir(d)).toBe(true);
    expect(prepareOutDir(d, true)).toBeNull();
    expect(readdirSync(d)).toEqual([]);
  });

  it('refuses a directory without a marker or an rtcap result.json, deleting nothing', () => {
    const d = dirWith({ 'notes.txt': 'mine', 'result.json': '{"old": true}' });
    expect(prepareOutDir(d, true)).toBe(
      `--out ${d}: holds notes.txt, result.json and no rtcap run (no ${OUT_MARKER}, no result.json of rtcap's); --force replaces only a directory rtcap wrote as a run: choose another directory`,
    );
    expect(readdirSync(d).sort()).toEqual(['notes.txt', 'result.json']);
  });

  it('refuses a run that holds other files as well, naming them', () => {
    const d = markedRun();
    writeFileSync(join(d, 'notes.txt'), 'mine');
    mkdirSync(join(d, 'src'));
    expect(prepareOutDir(d, true)).toMatch(/: holds an rtcap run and also notes\.txt, src; /);
    expect(existsSync(join(d, 'notes.txt'))).toBe(true);
    expect(existsSync(join(d, 'result.json'))).toBe(true);
  });

  it('refuses a git checkout even with a marker', () => {
    const d = markedRun();
    mkdirSync(join(d, '.git'));
    expect(prepareOutDir(d, true)).toMatch(/: is a git checkout \(it holds \.git\); --force/);
    expect(existsSync(join(d, 'result.json'))).toBe(true);
  });

  it("never empties a symbolic link's target", () => {
    const target = markedRun();
    const link = join(tempDir('rtcap-outdir-link-'), 'out');
    symlinkSync(target, link);
    expect(prepareOutDir(link, true)).toBe(
      `--out ${link}: is a symbolic link to ${target} (its target is never emptied); --force replaces only a directory rtcap wrote as a run: choose another directory`,
    );
    expect(existsSync(join(target, 'result.json'))).toBe(true);
  });

  it("refuses the home directory, the working directory, the profile's folder, a parent of them", () => {
    const d = markedRun();
    expect(protectedPlace(d, { home: d })).toBe('is your home directory');
    expect(protectedPlace(d, { home: join(d, 'user') })).toBe('holds your home directory');
    expect(protectedPlace(d, { cwd: join(d, 'sub') })).toBe(
      'is the working directory or one above it',
    );
    expect(protectedPlace(d, { profilePath: join(d, 'p.yaml') })).toBe(
      `holds the profile ${join(d, 'p.yaml')}`,
    );
    expect(protectedPlace('/')).toBe('is the root of the file system');
    expect(prepareOutDir(d, true, { home: d })).toMatch(/: is your home directory; --force/);
    expect(existsSync(join(d, 'result.json'))).toBe(true);
    // A sibling of the profile's folder named like it is not its folder.
    expect(protectedPlace(d, { profilePath: `${d}-x/p.yaml`, home: '/nonexistent' })).toBeNull();
  });

  it('without --force, offers --force only for a run', () => {
    const run = markedRun();
    expect(prepareOutDir(run, false)).toMatch(
      /already holds a run .*, or add --force to replace that run$/,
    );
    const other = dirWith({ 'a.txt': '' });
    expect(prepareOutDir(other, false)).toBe(
      `--out ${other}: already holds files (a.txt); choose another directory`,
    );
  });

  it('a directory holding only a marker (a run that wrote nothing yet) is empty', () => {
    const d = dirWith({ [OUT_MARKER]: '' });
    expect(prepareOutDir(d, false)).toBeNull();
  });
});

describe('the marker', () => {
  it('is written into the directory of every new run', () => {
    const d = join(tempDir('rtcap-outdir-'), 'run');
    const w = RunWriter.forRun(d, 'unused', 'id');
    w.release();
    expect(existsSync(join(d, OUT_MARKER))).toBe(true);
    const m = tempDir('rtcap-outdir-');
    markOutDir(m);
    expect(isRunDir(m)).toBe(true);
  });
});

describe('removeRunDir (a campaign entry run again)', () => {
  it('removes a run directory and refuses anything else', () => {
    const run = markedRun();
    removeRunDir(run);
    expect(existsSync(run)).toBe(false);
    const other = dirWith({ 'keep.txt': 'x' });
    expect(() => removeRunDir(other)).toThrow(OutDirRefused);
    expect(existsSync(join(other, 'keep.txt'))).toBe(true);
    removeRunDir(join(other, 'absent'));
  });
});
