/**
 * `rtcap validate` and `rtcap schema` as a user runs them: validate reports what run would,
 * line by line, and runs nothing; schema prints the checked-in JSON Schema.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { tempDir } from '../support/temp-dir.js';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/rtcap.js');

/** Whether the nobody user can read a file of this checkout (not from a 0700 directory). */
function nobodyReaches(file: string): boolean {
  const r = spawnSync(
    process.execPath,
    [
      '-e',
      `require('node:fs').accessSync(${JSON.stringify(file)}, require('node:fs').constants.R_OK)`,
    ],
    { uid: 65534, gid: 65534, timeout: 10_000 },
  );
  return r.status === 0;
}
const rtcap = (args: string[]) =>
  spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });

function profileFile(name: string, text: string): string {
  const p = join(tempDir('rtcap-validate-'), name);
  writeFileSync(p, text);
  return p;
}

describe('rtcap validate', () => {
  it('lists good profiles as ok and exits 0', () => {
    const r = rtcap([
      'validate',
      'profiles/quickstart.yaml',
      'profiles/broadcast-public-quick.yaml',
    ]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(
      'profiles/quickstart.yaml: ok\nprofiles/broadcast-public-quick.yaml: ok\n',
    );
    expect(r.status).toBe(0);
  });

  it('prints the same line-numbered errors as run, checks every file, and exits 2', () => {
    const bad = profileFile(
      'bad.yaml',
      [
        'name: x',
        'scenario: broadcast-public',
        'load:',
        '  join_rte: 10',
        '  steps:',
        '    - { connections: 1, duration: 1 sec }',
        '',
      ].join('\n'),
    );
    const r = rtcap(['validate', bad, 'profiles/quickstart.yaml']);
    const run = rtcap(['run', bad, '--no-progress']);
    expect(r.status).toBe(2);
    expect(run.status).toBe(2);
    expect(r.stderr).toBe(run.stderr);
    expect(r.stderr).toContain(
      `${bad}:4:3: load.join_rte: unknown field (did you mean "join_rate"?)`,
    );
    expect(r.stderr).toContain(`${bad}:6:35: load.steps.0.duration:`);
    expect(r.stdout).toBe('profiles/quickstart.yaml: ok\n');
  });

  it('applies --set as run does', () => {
    const r = rtcap(['validate', 'profiles/quickstart.yaml', '--set', 'load.join_rate=-1']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^--set load\.join_rate=-1: load\.join_rate: /);
  });
});

describe('rtcap validate: what run would refuse on this host', () => {
  it('more than this machine can hold: the same line as run, as a warning after ok; exit 0', () => {
    // No sends, so the host fit is the one refusal (10,000,000 connections sending would also
    // be over the deliveries/s the generator's cores can read, a second line).
    const set = ['--set', 'load.steps.0.connections=10000000', '--set', 'load.steps.0.send_rate=0'];
    const r = rtcap(['validate', 'profiles/quickstart.yaml', ...set]);
    const run = rtcap(['run', 'profiles/quickstart.yaml', ...set, '--out', tempDir('rtcap-v-')]);
    expect(run.status).toBe(2);
    // The memory and descriptors left are read by each command: the lines are compared up to them.
    const upToMemory = (l: string) => l.replace(/> [\d,]+ (MB available|left)/g, '> … $1');
    const refusal = upToMemory(run.stderr.replace(/^rtcap: /, '').trim());
    expect(refusal).toMatch(/^load asks for 10,000,000 connections, more than this machine/);
    expect(r.stdout).toBe('profiles/quickstart.yaml: ok\n');
    expect(upToMemory(r.stderr)).toBe(
      `profiles/quickstart.yaml: warning: rtcap run refuses it on this host: ${refusal}\n`,
    );
    expect(r.status).toBe(0);
  });

  it('generator.link.loss without netem (not root): the host fact named, exit 0; run refuses', () => {
    // As root this host may have netem: validate and run as nobody, for whom it never does —
    // when nobody can reach this checkout (not from a private directory such as CI's).
    const asUser = process.getuid?.() === 0 && nobodyReaches(BIN) ? { uid: 65534, gid: 65534 } : {};
    const dir = tempDir('rtcap-validate-link-');
    chmodSync(dir, 0o777);
    const p = join(dir, 'link.yaml');
    writeFileSync(
      p,
      [
        'name: l',
        'scenario: broadcast-public',
        'load:',
        '  steps:',
        '    - { connections: 1, duration: 1s }',
        'generator:',
        '  link: { delay: 50ms, loss: 0.5% }',
        '',
      ].join('\n'),
    );
    chmodSync(p, 0o644);
    const as = (args: string[]) =>
      spawnSync(process.execPath, [BIN, ...args], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 30_000,
        ...asUser,
      });
    const r = as(['validate', p]);
    if (process.getuid?.() === 0 && !('uid' in asUser)) {
      // Root in a private checkout: netem decides. Without it, the same refusal with its reason.
      const said =
        /^.*: warning: rtcap run refuses it on this host: (generator\.link\.loss: needs the kernel's netem qdisc, which this host cannot give: .+)\n$/.exec(
          r.stderr,
        );
      expect(r.stdout).toBe(`${p}: ok\n`);
      expect(r.status).toBe(0);
      if (!said) return expect(r.stderr).toBe('');
      const run = as(['run', p, '--out', join(dir, 'out'), '--no-progress']);
      return expect({ status: run.status, stderr: run.stderr }).toEqual({
        status: 2,
        stderr: `${said[1]}\n`,
      });
    }
    const line =
      "generator.link.loss: needs the kernel's netem qdisc, which this host cannot give: not root (namespaces and qdiscs need CAP_NET_ADMIN); loss on TCP cannot be emulated faithfully in userspace, delay and jitter can";
    expect(r.stdout).toBe(`${p}: ok\n`);
    expect(r.stderr).toBe(`${p}: warning: rtcap run refuses it on this host: ${line}\n`);
    expect(r.status).toBe(0);
    const run = as(['run', p, '--out', join(dir, 'out'), '--no-progress']);
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 2, stderr: `${line}\n` });
  });

  it('a link without loss needs no netem: no warning', () => {
    const p = profileFile(
      'delay.yaml',
      [
        'name: d',
        'scenario: broadcast-public',
        'load:',
        '  steps:',
        '    - { connections: 1, duration: 1s }',
        'generator:',
        '  link: { delay: 50ms }',
        '',
      ].join('\n'),
    );
    const r = rtcap(['validate', p]);
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  });
});

describe('rtcap validate: every file rtcap reads', () => {
  it('every file shipped in profiles/ is valid, each as its kind', () => {
    // Whatever is in profiles/ now: a new campaign, workload or profile is held to it too.
    const files = ['.', 'campaigns', 'workloads'].flatMap((d) =>
      readdirSync(join(ROOT, 'profiles', d))
        .filter((n) => n.endsWith('.yaml'))
        .map((n) => join('profiles', d, n).replace('profiles/./', 'profiles/')),
    );
    expect(files.length).toBeGreaterThan(20);
    const r = rtcap(['validate', ...files]);
    // A smaller machine than this one may warn that it cannot hold a shipped profile's load.
    const hostFact = ': warning: rtcap run refuses it on this host: ';
    expect(r.stderr.split('\n').filter((l) => l && !l.includes(hostFact))).toEqual([]);
    expect(r.status).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(files.length);
    for (const [i, f] of files.entries()) {
      const kind = f.startsWith('profiles/campaigns/')
        ? ' (campaign)'
        : f.startsWith('profiles/workloads/')
          ? ' (workload)'
          : '';
      expect(lines[i].startsWith(`${f}: ok${kind}`), lines[i]).toBe(true);
    }
  });

  it("a campaign: its own fields, then every entry's profile, with the campaign's overrides", () => {
    const dir = tempDir('rtcap-validate-');
    writeFileSync(
      join(dir, 'p.yaml'),
      'name: p\nscenario: broadcast-public\nload:\n  steps:\n    - { connections: 1, duration: 1s }\n',
    );
    writeFileSync(
      join(dir, 'c.yaml'),
      'name: c\nset: [load.join_rate=-1]\nentries:\n  - profile: p.yaml\n  - { profile: p.yaml, sweep: true }\n  - { profile: p.yaml, colour: red }\n',
    );
    const r = rtcap(['validate', join(dir, 'c.yaml')]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/c\.yaml:6:\d+: entries\.2\.colour: unknown field/);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    const c = join(dir, 'c.yaml');
    writeFileSync(c, 'name: c\nset: [load.join_rate=-1]\nentries:\n  - profile: p.yaml\n');
    const r2 = rtcap(['validate', c]);
    expect(r2.status).toBe(2);
    expect(r2.stderr).toMatch(
      new RegExp(`^${c}: entries\\.0: --set load\\.join_rate=-1: load\\.join_rate: `),
    );
    writeFileSync(
      c,
      'name: c\nentries:\n  - profile: p.yaml\n  - { profile: p.yaml, sweep: true }\n',
    );
    const r3 = rtcap(['validate', c]);
    expect(r3.status).toBe(2);
    expect(r3.stderr).toMatch(
      new RegExp(
        `^${c}: entries\\.1: ${join(dir, 'p.yaml')}: the profile has no \`sweep:\` section`,
      ),
    );
    expect(r3.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('a workload is checked as plan reads it', () => {
    const w = profileFile('w.yaml', 'name: w\nconnections: { public: -1 }\n');
    const r = rtcap(['validate', w]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^${w}:2:\\d+: connections\\.public: `));
  });

  it('a profile whose ${VARS} are unset is checked, with the variables named', () => {
    const p = profileFile(
      'env.yaml',
      'name: e\nscenario: broadcast-public\ntarget:\n  url: ${RTCAP_TEST_UNSET_URL}\nload:\n  steps:\n    - { connections: 1, duration: 1s }\n',
    );
    const r = rtcap(['validate', p]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(
      `${p}: ok — not set here, so their fields were not checked: \${RTCAP_TEST_UNSET_URL} (target.url)\n`,
    );
    expect(r.status).toBe(0);
    // The rest of the file is still checked.
    writeFileSync(p, readFileSync(p, 'utf8').replace('duration: 1s', 'duration: fast'));
    expect(rtcap(['validate', p]).status).toBe(2);
  });
});

describe('rtcap schema', () => {
  it('prints profiles/rtcap.schema.json', () => {
    const r = rtcap(['schema']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(readFileSync(join(ROOT, 'profiles/rtcap.schema.json'), 'utf8'));
  });

  it('--kind campaign and workload: their own schemas, which the shipped files pass', () => {
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    for (const [kind, dir] of [
      ['campaign', 'campaigns'],
      ['workload', 'workloads'],
    ] as const) {
      const r = rtcap(['schema', '--kind', kind]);
      expect(r.status).toBe(0);
      const schema = JSON.parse(r.stdout) as { title: string };
      expect(schema.title).toBe(`rtcap ${kind}`);
      const validate = ajv.compile(schema);
      for (const n of readdirSync(join(ROOT, 'profiles', dir)).filter((f) => f.endsWith('.yaml'))) {
        expect(
          validate(parse(readFileSync(join(ROOT, 'profiles', dir, n), 'utf8'))),
          `${dir}/${n}: ${JSON.stringify(validate.errors)}`,
        ).toBe(true);
      }
      // A profile is not a campaign.
      expect(validate(parse(readFileSync(join(ROOT, 'profiles/quickstart.yaml'), 'utf8')))).toBe(
        false,
      );
    }
  });
});
