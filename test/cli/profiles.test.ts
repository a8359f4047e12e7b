/**
 * `rtcap validate` and `rtcap schema` as a user runs them: validate reports what run would,
 * line by line, and runs nothing; schema prints the checked-in JSON Schema.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/rtcap.js');
const rtcap = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });

function profileFile(name: string, text: string): string {
  const p = join(mkdtempSync(join(tmpdir(), 'rtcap-validate-')), name);
  writeFileSync(p, text);
  return p;
}

describe('rtcap validate', () => {
  it('lists good profiles as ok and exits 0', () => {
    const r = rtcap(['validate', 'profiles/quickstart.yaml', 'profiles/broadcast-public-quick.yaml']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('profiles/quickstart.yaml: ok\nprofiles/broadcast-public-quick.yaml: ok\n');
    expect(r.status).toBe(0);
  });

  it('prints the same line-numbered errors as run, checks every file, and exits 2', () => {
    const bad = profileFile('bad.yaml', ['name: x', 'scenario: broadcast-public', 'load:', '  join_rte: 10', '  steps:', '    - { connections: 1, duration: 1 sec }', ''].join('\n'));
    const r = rtcap(['validate', bad, 'profiles/quickstart.yaml']);
    const run = rtcap(['run', bad, '--no-progress']);
    expect(r.status).toBe(2);
    expect(run.status).toBe(2);
    expect(r.stderr).toBe(run.stderr);
    expect(r.stderr).toContain(`${bad}:4:3: load.join_rte: unknown field (did you mean "join_rate"?)`);
    expect(r.stderr).toContain(`${bad}:6:35: load.steps.0.duration:`);
    expect(r.stdout).toBe('profiles/quickstart.yaml: ok\n');
  });

  it('applies --set as run does', () => {
    const r = rtcap(['validate', 'profiles/quickstart.yaml', '--set', 'load.join_rate=-1']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^--set load\.join_rate=-1: load\.join_rate: /);
  });
});

describe('rtcap schema', () => {
  it('prints profiles/rtcap.schema.json', () => {
    const r = rtcap(['schema']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(readFileSync(join(ROOT, 'profiles/rtcap.schema.json'), 'utf8'));
  });
});
