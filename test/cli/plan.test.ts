/** `rtcap plan` through the command line parser on the seed table and the shipped workloads. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildCapacityFile } from '../../src/capacity/table.js';
import { main } from '../../src/cli/main.js';
import { SEED_002_RUNS, loadRun } from '../fixtures/index.js';

let out = '';
let err = '';
afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = 0;
});
function capture(): void {
  out = '';
  err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => ((out += String(s)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => ((err += String(s)), true));
}
function seedCapacity(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'rtcap-plan-')), 'capacity.json');
  writeFileSync(path, JSON.stringify(buildCapacityFile(SEED_002_RUNS.map((n) => ({ dir: n, result: loadRun(n) })))));
  return path;
}

describe('rtcap plan', () => {
  it('prints instances needed, the binding dimension and each dimension\'s arithmetic', async () => {
    capture();
    await main(['plan', '--capacity', seedCapacity(), '--workload', 'profiles/workloads/chat.yaml']);
    expect(process.exitCode).toBe(0);
    // A reconnect storm of 200 joins/s ÷ 50/s per instance (§4 knee) = 4 binds; connections need 3.
    expect(out).toMatch(/^4 instances of 2 vCPU \/ 4096 MB; binding dimension: join_rate\.$/m);
    expect(out).toContain('| private_connections | 40,000 (40,000 private connections) | ≤ 19,100 | 3 | 48% | 40,000 ÷ 19,148.39 per instance = 2.09 → 3 |');
    expect(out).toContain('| public_deliveries | 30,000 (1 msg/s × fan-out 30,000) | ≤ 26,700/s | 2 | 72% | 30,000 ÷ 26,798 per instance = 1.12 → 2 |');
  });

  it('a lobby of 10,000 presence members: no instance count carries it, exit 1', async () => {
    capture();
    await main(['plan', '--capacity', seedCapacity(), '--workload', 'profiles/workloads/lobby.yaml']);
    expect(process.exitCode).toBe(1);
    expect(out).toContain('No number of 2 vCPU / 4096 MB instances carries this workload: presence_members cannot be split');
  });

  it('a workload error is reported at its line', async () => {
    const bad = join(mkdtempSync(join(tmpdir(), 'rtcap-plan-')), 'w.yaml');
    writeFileSync(bad, 'name: w\nconnections: { public: -1 }\n');
    capture();
    await main(['plan', '--capacity', seedCapacity(), '--workload', bad]);
    expect(process.exitCode).toBe(2);
    expect(err).toMatch(/w\.yaml:2:\d+: connections\.public: /);
  });
});
