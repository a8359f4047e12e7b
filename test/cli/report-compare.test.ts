/**
 * `rtcap report DIR` and `rtcap compare A B` through the command line parser, in this
 * process, on fixture results.
 */
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { readResultFile } from '../../src/cli/report.js';
import type { ResultFile } from '../../src/artefacts/render.js';
import { loadRun } from '../fixtures/index.js';
import { tempDir } from '../support/temp-dir.js';

const FIXTURES = new URL('../fixtures/', import.meta.url);

function dirWith(name: string, edit: (r: ResultFile) => void = () => undefined): string {
  const dir = tempDir('rtcap-cli-');
  const r = loadRun(name) as ResultFile;
  edit(r);
  writeFileSync(join(dir, 'result.json'), JSON.stringify(r));
  if (name === 'run-a')
    copyFileSync(new URL('run-a.timeseries.ndjson', FIXTURES), join(dir, 'timeseries.ndjson'));
  return dir;
}

let err = '';
let out = '';
function capture(): void {
  err = '';
  out = '';
  vi.spyOn(process.stderr, 'write').mockImplementation(
    (s: string | Uint8Array) => ((err += String(s)), true),
  );
  vi.spyOn(process.stdout, 'write').mockImplementation(
    (s: string | Uint8Array) => ((out += String(s)), true),
  );
}
afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = 0;
});

describe('rtcap report', () => {
  it('rebuilds the analysis, summary.md and report.html from result.json and prints the summary', async () => {
    const dir = dirWith('run-a');
    capture();
    await main(['report', dir]);
    expect(process.exitCode).toBe(0);
    const r = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as ResultFile;
    expect((r.analysis as { capacity: unknown[] }).capacity.length).toBeGreaterThan(0);
    expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toContain('Recommended capacity');
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toContain('<svg');
    // The summary is the result: stdout; what rtcap did is stderr.
    expect(out).toMatch(/^fit: CPU ≈ .* \(R² \d\.\d\d, \d steps\)$/m);
    expect(out).toMatch(/^capacity: /m);
    expect(out.trimEnd().split('\n').at(-1)).toMatch(/carried .* within the SLO/);
    expect(err).toContain(`rebuilt ${dir}/`);
    expect(err).not.toMatch(/^capacity: /m);
  });

  it('exits 99 when a profile threshold fails, after writing everything', async () => {
    const dir = dirWith('run-a', (r) => (r.profile.resolved = { thresholds: ['p95_ms < 5'] }));
    capture();
    await main(['report', dir]);
    expect(process.exitCode).toBe(99);
    expect(out).toMatch(/^thresholds: FAIL — 0 of 1 passed/m);
    expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toContain('## Thresholds: FAIL');
  });

  it('exits 2 on a directory without an rtcap result', async () => {
    const dir = tempDir('rtcap-cli-');
    capture();
    await main(['report', dir]);
    expect(process.exitCode).toBe(2);
    expect(err).toBe(
      `rtcap: run directory ${dir}: no result.json in it (expected a run directory)\n`,
    );
    writeFileSync(join(dir, 'result.json'), '{"schema":"other"}');
    expect(readResultFile(dir)).toMatch(/not an rtcap result/);
  });
});

describe('rtcap compare', () => {
  it('prints both runs side by side with the differences, and writes HTML with --out', async () => {
    const a = dirWith('run-a');
    const b = dirWith('run-b');
    const html = join(tempDir('rtcap-cli-'), 'cmp.html');
    capture();
    await main(['compare', a, join(b, 'result.json'), '--out', html]);
    expect(process.exitCode ?? 0).toBe(0);
    expect(out).toMatch(/^# rtcap compare: A .* vs B /);
    expect(out).toContain('| figure | A | B | B − A | B is |');
    const page = readFileSync(html, 'utf8');
    expect(page).toMatch(/^<!doctype html>/);
    expect(page).toContain('<th class="left">figure</th>');
    // Every Markdown table of the comparison is one HTML table.
    expect((page.match(/<table>/g) ?? []).length).toBe(
      (out.match(/^\|(?:---:?\|)+$/gm) ?? []).length,
    );
    expect((page.match(/<table>/g) ?? []).length).toBeGreaterThan(3);
    expect(err).toContain(`wrote ${html} (HTML)`);
  });

  it('writes Markdown for any other --out name', async () => {
    const md = join(tempDir('rtcap-cli-'), 'cmp.md');
    capture();
    await main(['compare', dirWith('run-a'), dirWith('run-b'), '--out', md]);
    expect(readFileSync(md, 'utf8')).toBe(out);
  });

  describe('--fail-on gates', () => {
    /** B: the same run with every latency 20 % higher. */
    const slower = (r: ResultFile) => {
      for (const st of r.steps)
        for (const k of ['p50', 'p95', 'p99', 'p999', 'max'] as const)
          if (st.latency_ms[k] !== null) st.latency_ms[k] = st.latency_ms[k]! * 1.2;
    };

    it('B 20 % slower than A exits 99, naming the figure and each step past the gate', async () => {
      capture();
      await main([
        'compare',
        dirWith('run-a'),
        dirWith('run-a', slower),
        '--fail-on',
        'p95_ms +10%',
        '--fail-on',
        'delivery_rate -0.1pp',
      ]);
      expect(process.exitCode).toBe(99);
      expect(err).toContain('gates: FAIL — 1 of 2 passed; regressed: p95_ms');
      expect(err).toContain(
        'FAIL  p95_ms +10%: FAIL — p95_ms step 0: 9 → 10.8 (+1.8, +20.0 %); p95_ms step 1: 12 → 14.4 (+2.4, +20.0 %);',
      );
      expect(err).toMatch(/^ {2}pass {2}delivery_rate -0\.1pp: pass/m);
    });

    it('passes (exit 0) within the gate, by step selection, and in absolute form', async () => {
      capture();
      await main([
        'compare',
        dirWith('run-a'),
        dirWith('run-a', slower),
        '--fail-on',
        'p95_ms +25%',
        '--fail-on',
        'p95_ms{step:0} +2ms',
        '--fail-on',
        'p95_ms{step:"1000 conns × 5/s"} +10%',
      ]);
      expect(err).toContain(
        'gates: FAIL — 2 of 3 passed; regressed: p95_ms{step:"1000 conns × 5/s"}',
      );
      process.exitCode = 0;
      capture();
      await main([
        'compare',
        dirWith('run-a'),
        dirWith('run-a', slower),
        '--fail-on',
        'p95_ms +25%',
        '--fail-on',
        'p95_ms{step:0} +2ms',
      ]);
      expect(err).toContain('gates: PASS — 2 of 2 passed');
      expect(process.exitCode ?? 0).toBe(0);
    });

    it('writes the gates into the --out file first, so the artefact a CI step keeps says why it failed', async () => {
      const dir = tempDir('rtcap-cli-');
      capture();
      await main([
        'compare',
        dirWith('run-a'),
        dirWith('run-a', slower),
        '--fail-on',
        'p95_ms +10%',
        '--fail-on',
        'delivery_rate -0.1pp',
        '--out',
        join(dir, 'cmp.html'),
      ]);
      expect(process.exitCode).toBe(99);
      const html = readFileSync(join(dir, 'cmp.html'), 'utf8');
      expect(html).toContain('<h2>Gates</h2>\n<p>FAIL — 1 of 2 gates passed</p>');
      expect(html).toContain(
        '<td class="left">p95_ms +10%</td><td class="left">FAIL</td><td class="left">p95_ms +10%: FAIL — p95_ms step 0: 9 → 10.8 (+1.8, +20.0 %)',
      );
      expect(html.indexOf('<h2>Gates</h2>')).toBeLessThan(html.indexOf('<h2>Steps</h2>'));
      process.exitCode = 0;
      capture();
      await main([
        'compare',
        dirWith('run-a'),
        dirWith('run-a', slower),
        '--fail-on',
        'p95_ms +25%',
        '--out',
        join(dir, 'cmp.md'),
      ]);
      expect(readFileSync(join(dir, 'cmp.md'), 'utf8')).toContain(
        '## Gates\n\nPASS — 1 of 1 gates passed\n',
      );
      process.exitCode = 0;
    });

    it('exits 2 on a gate that does not parse, naming it', async () => {
      capture();
      await main(['compare', dirWith('run-a'), dirWith('run-b'), '--fail-on', 'p95_ms +5pp']);
      expect(process.exitCode).toBe(2);
      expect(err).toContain(
        'rtcap compare: --fail-on: threshold "p95_ms +5pp": "pp" (percentage points) applies to ratio or _pct metrics, not p95_ms',
      );
    });
  });
});
