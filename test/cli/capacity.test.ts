/** `rtcap capacity DIR...` through the command line parser, in this process, on the seed fixtures. */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CapacityFile } from '../../src/capacity/types.js';
import { SEED_002_RUNS, loadRun } from '../fixtures/index.js';

let err = '';
function capture(): void {
  err = '';
  vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => ((err += String(s)), true));
}
afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = 0;
});

function seedDirs(edit: (name: string, r: ReturnType<typeof loadRun>) => void = () => undefined): { root: string; dirs: string[] } {
  const root = mkdtempSync(join(tmpdir(), 'rtcap-capacity-'));
  const dirs = SEED_002_RUNS.map((n) => {
    const d = join(root, 'runs', n);
    mkdirSync(d, { recursive: true });
    const r = loadRun(n);
    edit(n, r);
    writeFileSync(join(d, 'result.json'), JSON.stringify(r));
    return d;
  });
  return { root, dirs };
}

describe('rtcap capacity', () => {
  it('builds capacity.json, capacity.md and report.html from separate runs, links relative to --out', async () => {
    const { root, dirs } = seedDirs();
    const out = join(root, 'table');
    capture();
    await main(['capacity', ...dirs, '--out', out]);
    expect(process.exitCode).toBe(0);
    const f = JSON.parse(readFileSync(join(out, 'capacity.json'), 'utf8')) as CapacityFile;
    expect(f.rows).toHaveLength(12);
    expect(f.config).toHaveLength(4);
    expect(f.values.cdc_subscribers).toBe(17_000);
    expect(f.rows[0].evidence!.chart).toBe('../runs/seed-002-s1.1-connections/report.html#charts');
    const md = readFileSync(join(out, 'capacity.md'), 'utf8');
    expect(md).toContain('| 3 | Public broadcast — deliveries/s | ≤ 26,700/s | CPU |');
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html.match(/<tr data-row=/g)).toHaveLength(12);
    expect(html).toContain('href="../runs/seed-002-s1.2-deliveries/report.html#charts"');
    expect(err).toMatch(/^ 3 {2}Public broadcast — deliveries\/s +≤ 26,700\/s \(CPU\)$/m);
  });

  it('takes a directory of run directories (a campaign) as well', async () => {
    const { root } = seedDirs();
    const out = join(root, 'table2');
    capture();
    await main(['capacity', join(root, 'runs'), '--out', out]);
    expect(process.exitCode).toBe(0);
    expect((JSON.parse(readFileSync(join(out, 'capacity.json'), 'utf8')) as CapacityFile).sources).toHaveLength(SEED_002_RUNS.length);
  });

  it('refuses runs that are not like for like, with the reason, and writes nothing', async () => {
    const { root, dirs } = seedDirs((n, r) => {
      if (n === 'seed-002-s4-join-rate') r.target.instance = { vcpus: 4, memory_mb: 8192 };
    });
    const out = join(root, 'table3');
    capture();
    await main(['capacity', ...dirs, '--out', out]);
    expect(process.exitCode).toBe(2);
    expect(err).toContain('not like for like: ');
    expect(err).toContain('seed-002-s4-join-rate: instance 4 vCPU / 8192 MB is not ');
    expect(existsSync(out)).toBe(false);
  });
});
