/**
 * `rtcap run … --out DIR --force` as a user types it: refused with exit 2 and one line for any
 * directory that is not an earlier rtcap run (a git checkout, a link, the profile's own folder,
 * $HOME), and nothing in it is touched. Each case is refused before anything starts.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OUT_MARKER } from '../../src/run/out-dir.js';
import { tempDir } from '../support/temp-dir.js';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/rtcap.js');
const QUICKSTART = join(ROOT, 'profiles/quickstart.yaml');

function rtcap(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env, timeout: 30_000 });
  return { code: r.status, stderr: r.stderr };
}

/** A git checkout with one commit: `.git`, a README and a source file. */
function gitCheckout(): string {
  const d = tempDir('rtcap-force-git-');
  const git = (...a: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...a], {
      cwd: d,
      stdio: 'ignore',
    });
  writeFileSync(join(d, 'README.md'), '# mine\n');
  mkdirSync(join(d, 'src'));
  writeFileSync(join(d, 'src/a.ts'), 'export {};\n');
  git('init', '-q');
  git('add', '.');
  git('commit', '-q', '-m', 'mine');
  return d;
}

describe('rtcap run --force', () => {
  it('refuses a git checkout with exit 2 and one line, and leaves it intact', () => {
    const d = gitCheckout();
    const before = readdirSync(d).sort();
    const r = rtcap(['run', QUICKSTART, '--out', d, '--force', '--no-progress']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `--out ${d}: is a git checkout (it holds .git); --force replaces only a directory rtcap wrote as a run: choose another directory\n`,
    );
    expect(readdirSync(d).sort()).toEqual(before);
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: d, encoding: 'utf8' })).toBe('');
    expect(readFileSync(join(d, 'src/a.ts'), 'utf8')).toBe('export {};\n');
  });

  it("refuses a symbolic link to an earlier run, leaving the link's target intact", () => {
    const run = tempDir('rtcap-force-run-');
    writeFileSync(join(run, OUT_MARKER), '');
    writeFileSync(join(run, 'summary.md'), '# an earlier run\n');
    const link = join(tempDir('rtcap-force-link-'), 'out');
    symlinkSync(run, link);
    const r = rtcap(['run', QUICKSTART, '--out', link, '--force', '--no-progress']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^--out .*: is a symbolic link to .* \(its target is never emptied\); /,
    );
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(readdirSync(run).sort()).toEqual([OUT_MARKER, 'summary.md']);
  });

  it("refuses the profile's own folder and $HOME, even when they look like a run", () => {
    const folder = tempDir('rtcap-force-profile-');
    const profile = join(folder, 'quickstart.yaml');
    copyFileSync(QUICKSTART, profile);
    writeFileSync(join(folder, OUT_MARKER), '');
    const own = rtcap(['run', profile, '--out', folder, '--force', '--no-progress']);
    expect(own.code).toBe(2);
    expect(own.stderr).toContain(`: holds the profile ${profile}; --force replaces only`);
    expect(readdirSync(folder).sort()).toEqual([OUT_MARKER, 'quickstart.yaml']);

    const home = tempDir('rtcap-force-home-');
    writeFileSync(join(home, OUT_MARKER), '');
    writeFileSync(join(home, 'summary.md'), '# looks like a run\n');
    const r = rtcap(['run', QUICKSTART, '--out', home, '--force', '--no-progress'], {
      ...process.env,
      HOME: home,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `--out ${home}: is your home directory; --force replaces only a directory rtcap wrote as a run: choose another directory\n`,
    );
    expect(readdirSync(home).sort()).toEqual([OUT_MARKER, 'summary.md']);
  });
});
