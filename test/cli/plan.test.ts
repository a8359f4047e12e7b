/** `rtcap plan` through the command line parser on the seed table and the shipped workloads. */
import { spawnSync } from 'node:child_process';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildCapacityFile } from '../../src/capacity/table.js';
import { main } from '../../src/cli/main.js';
import { SEED_002_RUNS, loadRun, poolBoundJoinRun } from '../fixtures/index.js';
import { tempDir } from '../support/temp-dir.js';

let out = '';
let err = '';
afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = 0;
});
function capture(): void {
  out = '';
  err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation(
    (s: string | Uint8Array) => ((out += String(s)), true),
  );
  vi.spyOn(process.stderr, 'write').mockImplementation(
    (s: string | Uint8Array) => ((err += String(s)), true),
  );
}
function seedCapacity(): string {
  const path = join(tempDir('rtcap-plan-'), 'capacity.json');
  writeFileSync(
    path,
    JSON.stringify(buildCapacityFile(SEED_002_RUNS.map((n) => ({ dir: n, result: loadRun(n) })))),
  );
  return path;
}

/**
 * The seed's table with a join-rate run the default db_pool of 1 limits (test/plan/knobs.test.ts).
 */
function poolOneCapacity(dir = tempDir('rtcap-plan-')): string {
  const runs = SEED_002_RUNS.filter((n) => n !== 'seed-002-s4-join-rate').map((n) => ({
    dir: n,
    result: loadRun(n),
  }));
  const path = join(dir, 'capacity.json');
  writeFileSync(
    path,
    JSON.stringify(
      buildCapacityFile([...runs, { dir: 'join-pool-1', result: poolBoundJoinRun() }]),
    ),
  );
  return path;
}

describe('rtcap plan turns the knobs', () => {
  it('chat.yaml with the join row limited by db_pool 1: today none carries it, db_pool 43 does, and says which change saves the most', async () => {
    capture();
    await main([
      'plan',
      '--capacity',
      poolOneCapacity(),
      '--workload',
      'profiles/workloads/chat.yaml',
    ]);
    expect(process.exitCode).toBe(0);
    expect(out).toContain("## With today's settings");
    expect(out).toMatch(
      /^No number of 2 vCPU \/ 4096 MB instances carries this workload: join_rate cannot be split/m,
    );
    expect(out).toContain(
      'planned per tenant: 200 per tenant (200 ÷ 1 tenant) > db_pool 1 × 4.65 = 4.65',
    );
    expect(out).toContain('## Settings that limit a row (seed 002 §8 applied)');
    expect(out).toMatch(/^\| db_pool \| join_rate \| 1 \| 43 \| /m);
    expect(out).toContain(
      'Saves the most: db_pool 1 → 43: none carries it → 25 instances (at most: fewer may do).',
    );
    expect(out).toMatch(
      /^25 instances of 2 vCPU \/ 4096 MB; binding dimension: join_rate\. At most that many: the binding row is a lower bound, fewer may do\.$/m,
    );
    expect(out).toContain('(a lower bound: fewer may do)');
  });
});

describe('rtcap plan without --capacity', () => {
  const bin = resolve('bin/rtcap.js');
  const chat = resolve('profiles/workloads/chat.yaml');
  const plan = (cwd: string) => {
    const r = spawnSync(process.execPath, [bin, 'plan', '--workload', chat], {
      cwd,
      encoding: 'utf8',
    });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };

  it('reads the newest reports/*/capacity.json and says which', () => {
    const cwd = tempDir('rtcap-plan-cwd-');
    for (const d of ['old', 'new']) mkdirSync(join(cwd, 'reports', d), { recursive: true });
    const old = poolOneCapacity(join(cwd, 'reports', 'old'));
    utimesSync(old, new Date(0), new Date(0));
    writeFileSync(
      join(cwd, 'reports', 'new', 'capacity.json'),
      JSON.stringify(buildCapacityFile(SEED_002_RUNS.map((n) => ({ dir: n, result: loadRun(n) })))),
    );
    const r = plan(cwd);
    expect(r.code).toBe(0);
    expect(r.err).toContain(
      'rtcap plan: reading reports/new/capacity.json (the newest capacity table under reports/; --capacity FILE reads another)',
    );
    expect(r.out).toMatch(/^4 instances of 2 vCPU \/ 4096 MB; binding dimension: join_rate\.$/m);
  });

  it('with none to read: one line naming the flag, exit 2', () => {
    const r = plan(tempDir('rtcap-plan-cwd-'));
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      'rtcap plan: --capacity not given and no reports/*/capacity.json to read: run `rtcap campaign profiles/campaigns/quick.yaml` or pass --capacity FILE\n',
    );
  });
});

describe('rtcap plan', () => {
  it("prints instances needed, the binding dimension and each dimension's arithmetic", async () => {
    capture();
    await main([
      'plan',
      '--capacity',
      seedCapacity(),
      '--workload',
      'profiles/workloads/chat.yaml',
    ]);
    expect(process.exitCode).toBe(0);
    // A reconnect storm of 200 joins/s ÷ 50/s per instance (§4 knee) = 4 binds; connections need 3.
    expect(out).toMatch(/^4 instances of 2 vCPU \/ 4096 MB; binding dimension: join_rate\.$/m);
    expect(out).toContain(
      '| private_connections | 40,000 (40,000 private connections) | ≤ 19,100 | 3 | 48% | 40,000 ÷ 19,148.39 per instance = 2.09 → 3 |',
    );
    expect(out).toContain(
      '| public_deliveries | 30,000 (1 msg/s × fan-out 30,000) | ≤ 26,700/s | 2 | 72% | 30,000 ÷ 26,798 per instance = 1.12 → 2 |',
    );
  });

  it('a lobby of 10,000 presence members: no instance count carries it, exit 4', async () => {
    capture();
    await main([
      'plan',
      '--capacity',
      seedCapacity(),
      '--workload',
      'profiles/workloads/lobby.yaml',
    ]);
    expect(process.exitCode).toBe(4);
    expect(out).toContain(
      'No number of 2 vCPU / 4096 MB instances carries this workload: presence_members cannot be split',
    );
  });

  it('a workload error is reported at its line', async () => {
    const bad = join(tempDir('rtcap-plan-'), 'w.yaml');
    writeFileSync(bad, 'name: w\nconnections: { public: -1 }\n');
    capture();
    await main(['plan', '--capacity', seedCapacity(), '--workload', bad]);
    expect(process.exitCode).toBe(2);
    expect(err).toMatch(/w\.yaml:2:\d+: connections\.public: /);
  });
});
