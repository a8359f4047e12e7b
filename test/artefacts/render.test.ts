/**
 * The artefacts every command writes from a result (src/artefacts/render.ts): the analysis stored
 * in result.json, summary.md and report.html from the timeseries on disk, thresholds, and a
 * sweep's table. From fixtures: no sockets.
 */
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  evaluateResultThresholds,
  readTimeseries,
  runArtifactHooks,
  summaryMarkdown,
  terminalSummary,
  writeArtifacts,
  type ResultFile,
} from '../../src/artefacts/render.js';
import { loadRun } from '../fixtures/index.js';
import { tempDir } from '../support/temp-dir.js';

const FIXTURES = new URL('../fixtures/', import.meta.url);

/** run-a predates step numbers from 1: number its steps as results are numbered now. */
function oneBased(r: ResultFile): ResultFile {
  r.steps.forEach((s, i) => (s.index = i + 1));
  return r;
}

function runDir(withThresholds: string[] | null = null): { dir: string; r: ResultFile } {
  const dir = tempDir('rtcap-render-');
  copyFileSync(new URL('run-a.timeseries.ndjson', FIXTURES), join(dir, 'timeseries.ndjson'));
  const r = oneBased(loadRun('run-a') as ResultFile);
  if (withThresholds)
    r.profile.resolved = { ...(r.profile.resolved as object), thresholds: withThresholds };
  return { dir, r };
}

describe('writeArtifacts', () => {
  it('stores the analysis in result.json and writes summary.md and a self-contained report.html with charts', () => {
    const { dir, r } = runDir();
    expect(writeArtifacts(r, dir)).toEqual([]);
    const saved = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as ResultFile;
    const analysis = saved.analysis as {
      fits: { text: string }[];
      capacity: { dimension: string }[];
    };
    expect(analysis.fits.some((f) => /R² \d\.\d\d/.test(f.text))).toBe(true);
    expect(analysis.capacity.length).toBeGreaterThan(0);
    expect(saved.thresholds).toBeUndefined();
    expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toContain('Recommended capacity');
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/); // nothing fetched, nothing run
    expect((html.match(/<svg/g) ?? []).length).toBeGreaterThanOrEqual(5);
    expect(readTimeseries(dir).length).toBeGreaterThan(10);
  });

  it('evaluates the profile thresholds on every step and records pass/fail with the evidence', () => {
    const { dir, r } = runDir(['p95_ms < 200', 'delivery_rate >= 0.999', 'errors == 0']);
    writeArtifacts(r, dir);
    const saved = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as ResultFile;
    expect(saved.thresholds).toMatchObject({ scope: 'every step (5)', steps: [1, 2, 3, 4, 5] });
    expect(saved.thresholds!.results.map((x) => [x.expression, x.pass])).toEqual(
      evaluateResultThresholds(r)!.results.map((x) => [x.expression, x.pass]),
    );
    expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toMatch(/## Thresholds: (pass|FAIL)/);
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toContain('id="thresholds"');
    const text = terminalSummary(saved);
    expect(text).toMatch(/^thresholds: (PASS|FAIL) — \d of 3 passed, on every step \(5\)$/m);
  });

  it('fails a threshold that a step breaks, naming the step and its figure', () => {
    const { r } = runDir(['p95_ms < 1']);
    const t = evaluateResultThresholds(r)!;
    expect(t.pass).toBe(false);
    expect(t.results[0].summary).toMatch(/^p95_ms < 1: fail — step 1: [\d.]+/);
  });

  it('rebuilds report.html without a timeseries (the timeline chart is then empty)', () => {
    const { dir, r } = runDir();
    const empty = tempDir('rtcap-render-');
    expect(writeArtifacts(r, empty)).toEqual([]);
    expect(existsSync(join(empty, 'report.html'))).toBe(true);
    void dir;
  });

  it('the runner hooks write the analysis before result.json and report.html after it', () => {
    const { dir, r } = runDir();
    const hooks = runArtifactHooks();
    const analysis = hooks.analyze!(r) as { fits: unknown[] };
    expect(analysis.fits.length).toBeGreaterThan(0);
    hooks.renderArtifacts!(r, dir);
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toContain('<svg');
    expect(hooks.renderSummary!(r)).toContain('# ');
  });
});

describe('a sweep result', () => {
  it('gets its sweep table, knee and stop reason in summary.md and the terminal', () => {
    const r = oneBased(loadRun('run-a') as ResultFile);
    r.sweep = {
      driver: 'connections',
      mode: 'search',
      points: r.steps.map((s, i) => ({
        step: s.index,
        value: 1000 * 2 ** i,
        phase: 'grow' as const,
      })),
      stop_reason: 'test',
      knee: null,
      resumed_at: [],
    };
    r.steps[3].verdict = 'broken';
    r.steps[3].verdict_reasons = ['delivery 97% < SLO 100%'];
    const md = summaryMarkdown(r);
    expect(md).toContain('## Sweep over connections');
    expect(md).toContain(
      'Knee: last stable connections 4,000 (step 3), first broken 8,000 (step 4).',
    );
    expect(terminalSummary(r)).toContain(
      'knee: connections between 4,000 (stable, step 3) and 8,000 (broken, step 4: delivery 97% < SLO 100%)',
    );
  });
});
