/**
 * The index of a folder of finished runs: every run, sweep and campaign found, each with the
 * figures its result.json holds — verdict counts, the terminal's headline sentence, the knee's
 * safe step — and where its files are; anything unreadable named, nothing written.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findKnee } from '../../src/model/knee.js';
import { driverOf, headline } from '../../src/report/headline.js';
import { indexFolder } from '../../src/dashboard/browse-index.js';
import { loadRun } from '../fixtures/index.js';
import { CAMPAIGN_ENTRIES, runsFolder } from '../support/runs-folder.js';

describe('indexFolder', () => {
  it('finds the runs and the campaign with their figures and files', () => {
    const root = runsFolder();
    const { index, sources } = indexFolder(root);
    expect(index.runs.map((r) => r.id)).toEqual(['run-b', 'run-a']); // newest first
    const a = loadRun('run-a');
    const ra = index.runs.find((r) => r.id === 'run-a')!;
    const counts: Record<string, number> = {};
    for (const s of a.steps) counts[s.verdict] = (counts[s.verdict] ?? 0) + 1;
    const safe = findKnee(a.steps, driverOf(a.steps)).safe!;
    const best = a.steps.find((s) => s.index === safe.step)!;
    expect(ra).toMatchObject({
      kind: 'run',
      name: a.run_id,
      started_at: a.started_at,
      profile: a.profile.name,
      scenario: a.profile.scenario,
      target: a.target.url,
      status: a.status,
      verdicts: counts,
      headline: headline(a),
      best: {
        step: best.index,
        joined: best.connections.joined,
        delivered_per_s: best.rates.delivered_per_s,
        p95_ms: best.latency_ms.p95,
      },
      files: {
        report: 'runs/run-a/report.html',
        summary: 'runs/run-a/summary.md',
        result: 'runs/run-a/result.json',
      },
    });
    const [c] = index.campaigns;
    expect(c.entries.map((e) => e.id)).toEqual(
      CAMPAIGN_ENTRIES.map((n, i) => `campaign/0${i + 1}-${n}`),
    );
    expect(c.capacity?.rows.length).toBe(12);
    expect(c.files.report).toBe('runs/campaign/report.html');
    // An entry's files sit under its campaign's, as on disk: the campaign report's relative
    // links to them resolve.
    expect(c.entries[0].files.report).toBe(`runs/campaign/01-${CAMPAIGN_ENTRIES[0]}/report.html`);
    expect(sources.get('run-a')).toBe(join(root, 'run-a'));
    expect(sources.get('campaign')).toBe(join(root, 'campaign'));
    expect(index.problems).toEqual([]);
  });

  it('takes bare result files, skips other JSON, and names a run directory it cannot read', () => {
    const root = runsFolder();
    writeFileSync(join(root, 'loose.json'), JSON.stringify(loadRun('run-b')));
    writeFileSync(join(root, 'other.json'), '{"schema":"rtcap.capacity/v1"}');
    mkdirSync(join(root, 'broken'));
    writeFileSync(join(root, 'broken', 'result.json'), '{ not json');
    const { index, sources } = indexFolder(root);
    expect(index.runs.map((r) => r.id).sort()).toEqual(['loose.json', 'run-a', 'run-b']);
    expect(sources.get('loose.json')).toBe(join(root, 'loose.json'));
    expect(index.problems).toHaveLength(1);
    expect(index.problems[0]).toMatch(/broken\/result\.json: not readable JSON/);
  });
});
