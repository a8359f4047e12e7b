/**
 * One exit-code table for every command (src/util/exit-codes.ts, the table of docs/FAULTS.md):
 * usage errors exit 2 everywhere, each with one line naming what was wrong. Through main(), in this
 * process, on real files; nothing here may start a run or a server.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { EXIT } from '../../src/util/exit-codes.js';
import { cliInProcess } from '../support/cli-in-process.js';
import { loadRun } from '../fixtures/index.js';
import { tempDir } from '../support/temp-dir.js';

const work = tempDir('rtcap-exit-test-');
afterAll(() => rmSync(work, { recursive: true, force: true }));
const write = (name: string, text: string) => {
  const p = join(work, name);
  writeFileSync(p, text);
  return p;
};
const builtin = write(
  'builtin.yaml',
  'name: b\nscenario: broadcast-public\nload:\n  steps:\n    - { connections: 1, duration: 1s }\n',
);
const runDir = join(work, 'run');
mkdirSync(runDir);
writeFileSync(join(runDir, 'result.json'), JSON.stringify(loadRun('run-a')));

afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = 0;
});
const cli = cliInProcess;

describe('the table', () => {
  it('is the only one: no other file of src/ defines an EXIT table', () => {
    const src = fileURLToPath(new URL('../../src', import.meta.url));
    const defining = readdirSync(src, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .filter((f) => /\bEXIT\s*=\s*\{/.test(readFileSync(join(src, f), 'utf8')))
      .map((f) => relative(src, join(src, f)));
    expect(defining).toEqual(['util/exit-codes.ts']);
  });

  it('is the table of docs/FAULTS.md', () => {
    const faults = readFileSync(new URL('../../docs/FAULTS.md', import.meta.url), 'utf8');
    for (const code of Object.values(EXIT))
      expect(faults).toMatch(new RegExp(`^\\| \`${code}\` \\|`, 'm'));
  });
});

describe('usage errors exit 2 with one line, every command', () => {
  const cases: [string, string[], string | RegExp][] = [
    ['campaign without a file', ['campaign'], 'rtcap: give a campaign file, or --resume DIR\n'],
    [
      'campaign of a missing file',
      ['campaign', join(work, 'nope.yaml')],
      `rtcap: campaign ${join(work, 'nope.yaml')}: no such file or directory\n`,
    ],
    [
      'sweep --resume with another --out',
      ['sweep', builtin, '--resume', runDir, '--out', work],
      'rtcap: --resume writes into the directory it resumes: leave out --out\n',
    ],
    [
      'serve --port abc',
      ['serve', '--port', 'abc'],
      'rtcap: --port abc: expected a port number from 0 to 65535 (0: any free port)\n',
    ],
    [
      'serve --tls-cert without a key',
      ['serve', '--tls-cert', builtin],
      'rtcap: --tls-cert and --tls-key go together: give both\n',
    ],
    [
      'k8s of a missing file',
      ['k8s', join(work, 'missing.yaml'), '--agents', '2', '--image', 'x'],
      `rtcap: profile ${join(work, 'missing.yaml')}: no such file or directory\n`,
    ],
    [
      'report of a directory without a run',
      ['report', work],
      `rtcap: run directory ${work}: no result.json in it (expected a run directory)\n`,
    ],
    [
      'plan --capacity DIR without capacity.json',
      ['plan', '--capacity', work, '--workload', 'profiles/workloads/chat.yaml'],
      `rtcap: --capacity ${work}: is a directory without capacity.json\n`,
    ],
    [
      'plan --workload missing',
      ['plan', '--capacity', builtin, '--workload', join(work, 'w.yaml')],
      `rtcap: --workload ${join(work, 'w.yaml')}: no such file or directory\n`,
    ],
    [
      'compare of a missing run',
      ['compare', runDir, join(work, 'b')],
      `rtcap: candidate run ${join(work, 'b')}: no such file or directory\n`,
    ],
    [
      'capacity of a missing directory',
      ['capacity', join(work, 'x')],
      `rtcap: directory ${join(work, 'x')}: no such file or directory\n`,
    ],
    [
      'merge of a directory without shards',
      ['merge', work, '--out', join(work, 'merged')],
      `rtcap merge: no shard.json in ${work} (searched two levels deep)\n`,
    ],
    [
      'quotas --url http',
      ['quotas', builtin, '--url', 'http://127.0.0.1:4000/socket'],
      /^rtcap: --url http:\/\/127\.0\.0\.1:4000\/socket: expected ws:\/\/ or wss:\/\//,
    ],
    [
      'run --url of a Supabase project',
      ['run', builtin, '--url', 'https://abcdefghij.supabase.co'],
      'rtcap: --url https://abcdefghij.supabase.co: expected a WebSocket URL: for a Supabase project, wss://abcdefghij.supabase.co/realtime/v1/websocket\n',
    ],
    [
      'run --out a file',
      ['run', builtin, '--out', builtin],
      `rtcap: --out ${builtin}: is a file, expected a directory to write into\n`,
    ],
    [
      'init --kind other (one line naming the flag, not "Invalid values:")',
      ['init', 'ws://127.0.0.1:4000/socket/websocket', '--kind', 'bogus'],
      'rtcap: --kind bogus: expected one of supabase, realtime, phoenix\n',
    ],
    [
      'init --out a directory',
      ['init', 'ws://127.0.0.1:4000/socket/websocket', '--out', work, '--force'],
      `rtcap: --out ${work}: is a directory, expected a file to write\n`,
    ],
    [
      'init --out in a directory that does not exist',
      ['init', 'ws://127.0.0.1:4000/socket/websocket', '--out', join(work, 'no', 'x.yaml')],
      `rtcap: --out ${join(work, 'no', 'x.yaml')}: no directory ${join(work, 'no')} to write it in\n`,
    ],
    [
      'compare --out in a directory that does not exist',
      ['compare', runDir, runDir, '--out', join(work, 'no', 'x.md')],
      `rtcap: --out ${join(work, 'no', 'x.md')}: no directory ${join(work, 'no')} to write it in\n`,
    ],
    [
      'k8s --image empty (it wrote pods with no image)',
      ['k8s', builtin, '--agents', '2', '--image', '', '--url', 'ws://127.0.0.1:4000/socket'],
      'rtcap: --image: needs a value (expected a container image reference (e.g. ghcr.io/me/rtcap:1))\n',
    ],
    [
      'serve --accept other',
      ['serve', '--accept', 'bogus'],
      'rtcap: --accept bogus: expected one of round-robin, shared\n',
    ],
    [
      'run --dashboard not a port',
      ['run', builtin, '--dashboard', 'abc'],
      'rtcap: --dashboard abc: must be a port number (0-65535), or nothing for any free port\n',
    ],
    ['validate of nothing', ['validate'], /^rtcap: Not enough non-option arguments/],
    ['clean with an argument', ['clean', 'x'], /^rtcap: Unknown argument: x/],
    [
      'schema --kind other',
      ['schema', '--kind', 'other'],
      /^rtcap: --kind other: expected one of profile, campaign, workload\n$/,
    ],
    ['an unknown command', ['frobnicate'], /^rtcap: Unknown argument: frobnicate/],
    // yargs reads --nope as taking the profile for its value, then misses the profile: the
    // message names the option, not a missing profile that is there.
    [
      'an unknown option before the profile',
      ['run', '--nope', builtin],
      'rtcap: Unknown argument: nope (rtcap --help for usage)\n',
    ],
    [
      'an unknown option after the profile',
      ['run', builtin, '--nope'],
      'rtcap: Unknown argument: nope (rtcap --help for usage)\n',
    ],
  ];
  it.each(cases)('%s', async (_name, argv, line) => {
    const r = await cli(...argv);
    expect(r.code, r.err).toBe(EXIT.usage);
    if (typeof line === 'string') expect(r.err).toBe(line);
    else expect(r.err).toMatch(line);
    expect(r.err.trimEnd().split('\n')).toHaveLength(1);
  });
});

describe('errors that name the thing', () => {
  it('k8s of a file that is not YAML: its line, not "Document with errors cannot be stringified"', async () => {
    const broken = write('broken.yaml', 'name: x\nload: [\n');
    const r = await cli(
      'k8s',
      broken,
      '--agents',
      '2',
      '--image',
      'x',
      '--url',
      'ws://127.0.0.1:4000/socket',
    );
    expect(r.code).toBe(EXIT.usage);
    expect(r.err).toMatch(new RegExp(`^${broken}:\\d+:\\d+: invalid YAML`));
  });

  it('a bad --dashboard is refused before --force empties --out', async () => {
    const kept = join(work, 'kept');
    mkdirSync(kept, { recursive: true });
    writeFileSync(join(kept, 'old.txt'), 'an old run');
    const r = await cli('run', builtin, '--out', kept, '--force', '--dashboard', '70000');
    expect(r.code).toBe(EXIT.usage);
    expect(readFileSync(join(kept, 'old.txt'), 'utf8')).toBe('an old run');
  });

  it("report of a run's result.json rebuilds its directory", async () => {
    const r = await cli('report', join(runDir, 'result.json'));
    expect(r.code).toBe(EXIT.ok);
    expect(r.err).toContain(`rebuilt ${runDir}/`);
  });
});
