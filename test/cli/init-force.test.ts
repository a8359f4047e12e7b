/**
 * `rtcap init URL --out FILE --force` as a user types it: --force replaces an earlier profile
 * and nothing else. Any other file (notes, a package.json), a link and a folder are refused
 * with exit 2 and one line, and are left as they were.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/temp-dir.js';

const BIN = join(resolve(import.meta.dirname, '../..'), 'bin/rtcap.js');
const URL = 'ws://127.0.0.1:4000/socket/websocket';

function init(out: string, ...extra: string[]) {
  const r = spawnSync(
    process.execPath,
    [BIN, 'init', URL, '--kind', 'phoenix', '--no-probe', '--out', out, ...extra],
    { encoding: 'utf8', timeout: 30_000 },
  );
  return { code: r.status, stderr: r.stderr };
}

describe('rtcap init --force', () => {
  it('replaces an earlier profile', () => {
    const out = join(tempDir('rtcap-init-force-'), 'rtcap.yaml');
    writeFileSync(out, 'target:\n  url: ws://127.0.0.1:1/socket/websocket\n');
    expect(init(out, '--force').code).toBe(0);
    expect(readFileSync(out, 'utf8')).toContain(URL);
  });

  it('refuses a file that is not a profile, with exit 2 and one line, and leaves it intact', () => {
    const d = tempDir('rtcap-init-force-');
    const cases: Array<[string, string, RegExp]> = [
      ['notes.txt', 'my notes: keep them\n', /not an rtcap profile/],
      ['package.json', '{"name": "mine"}\n', /not an rtcap profile/],
      ['broken.yaml', 'a: [\n', /not YAML/],
    ];
    for (const [name, text, why] of cases) {
      const out = join(d, name);
      writeFileSync(out, text);
      const r = init(out, '--force');
      expect(r.code, name).toBe(2);
      expect(r.stderr.trim().split('\n'), name).toHaveLength(1);
      expect(r.stderr, name).toMatch(why);
      expect(readFileSync(out, 'utf8'), name).toBe(text);
    }
  });

  it('never writes through a symbolic link, even to a profile', () => {
    const d = tempDir('rtcap-init-force-');
    const target = join(d, 'real.yaml');
    const before = 'target:\n  url: ws://127.0.0.1:1/socket/websocket\n';
    writeFileSync(target, before);
    symlinkSync(target, join(d, 'link.yaml'));
    const r = init(join(d, 'link.yaml'), '--force');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('symbolic link');
    expect(readFileSync(target, 'utf8')).toBe(before);
  });

  it('without --force an existing profile is kept and the hint names --force', () => {
    const out = join(tempDir('rtcap-init-force-'), 'rtcap.yaml');
    writeFileSync(out, 'target: {}\n');
    const r = init(out);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('add --force');
    expect(readFileSync(out, 'utf8')).toBe('target: {}\n');
  });
});
