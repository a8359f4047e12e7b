/**
 * `rtcap capacity DIR...` through the command line parser, in this process, on the seed fixtures.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CapacityFile } from '../../src/capacity/types.js';
import { SEED_002_RUNS, loadRun } from '../fixtures/index.js';
import { tempDir } from '../support/temp-dir.js';

let err = '';
function capture(): void {
  err = '';
  vi.spyOn(process.stderr, 'write').mockImplementation(
    (s: string | Uint8Array) => ((err += String(s)), true),
  );
}
afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = 0;
});

function seedDirs(edit: (name: string, r: ReturnType<typeof loadRun>) => void = () => undefined): {
  root: string;
  dirs: string[];
} {
  const root = tempDir('rtcap-capacity-');
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
    expect(md).toContain(
      '| 3 | Public broadcast — deliveries/s | ≤ 26,700/s | server CPU safe line (70%) |',
    );
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html.match(/<tr data-row=/g)).toHaveLength(12);
    expect(html).toContain('href="../runs/seed-002-s1.2-deliveries/report.html#charts"');
    expect(err).toMatch(
      /^ 3 {2}Public broadcast — deliveries\/s +≤ 26,700\/s \(server CPU safe line \(70%\)\)$/m,
    );
  });

  describe('--fail-on thresholds on the rows', () => {
    it('exits 99 when a row is below what is planned on, naming the row and its value; 0 when every row holds', async () => {
      const { root, dirs } = seedDirs();
      capture();
      await main([
        'capacity',
        ...dirs,
        '--out',
        join(root, 'a'),
        '--fail-on',
        'capacity.cdc_subscribers >= 20000',
        '--fail-on',
        'capacity.cdc_subscribers >= 17000',
      ]);
      expect(process.exitCode).toBe(99);
      expect(err).toContain('thresholds: FAIL — 1 of 2 passed');
      expect(err).toContain('FAIL  capacity.cdc_subscribers >= 20000: fail (17000)');
      expect(err).toContain('pass  capacity.cdc_subscribers >= 17000: pass (17000)');
      process.exitCode = 0;
      capture();
      await main([
        'capacity',
        ...dirs,
        '--out',
        join(root, 'b'),
        '--fail-on',
        'capacity.cdc_subscribers > 10000',
      ]);
      expect(process.exitCode ?? 0).toBe(0);
      expect(err).toContain('thresholds: PASS — 1 of 1 passed');
    });

    it('exits 2 before reading any run on a step figure or an unknown row', async () => {
      const { root, dirs } = seedDirs();
      capture();
      await main(['capacity', ...dirs, '--out', join(root, 'c'), '--fail-on', 'p95_ms < 200']);
      expect(process.exitCode).toBe(2);
      expect(err).toContain(
        'rtcap capacity: --fail-on: threshold "p95_ms < 200": rtcap capacity judges capacity rows',
      );
      expect(existsSync(join(root, 'c'))).toBe(false);
      process.exitCode = 0;
      capture();
      await main([
        'capacity',
        ...dirs,
        '--out',
        join(root, 'd'),
        '--fail-on',
        'capacity.cdc_subscriber >= 1',
      ]);
      expect(process.exitCode).toBe(2);
      expect(err).toContain('unknown capacity row "cdc_subscriber"');
    });
  });

  it('takes a directory of run directories (a campaign) as well', async () => {
    const { root } = seedDirs();
    const out = join(root, 'table2');
    capture();
    await main(['capacity', join(root, 'runs'), '--out', out]);
    expect(process.exitCode).toBe(0);
    expect(
      (JSON.parse(readFileSync(join(out, 'capacity.json'), 'utf8')) as CapacityFile).sources,
    ).toHaveLength(SEED_002_RUNS.length);
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
    expect(err).toContain('seed-002-s4-join-rate ran on 4 vCPU / 8192 MB, ');
    expect(existsSync(out)).toBe(false);
  });
});
