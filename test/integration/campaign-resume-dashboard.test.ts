/**
 * `rtcap campaign --resume DIR --dashboard` as a real process against the built-in server: a
 * campaign of two short runs completes, a crash during its second entry is simulated in
 * campaign.json, and the resumed campaign's live page (its JSON state, over HTTP) links the
 * files of the entry finished before the resume as well as those of the one it runs again, and
 * serves them. While it runs, an entry the page links files for is never shown as running.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LiveSnapshot } from '../../src/dashboard/feed.js';
import type { CampaignState } from '../../src/campaign/state.js';
import { startWithDashboard } from '../support/dashboard-browser.js';
import { tempDir } from '../support/temp-dir.js';

const BIN = resolve(import.meta.dirname, '../../bin/rtcap.js');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const profile = (name: string) =>
  [
    `name: ${name}`,
    'scenario: broadcast-public',
    'target:',
    '  server: { database: false }',
    'generator: { max_event_loop_lag_p99_ms: 2000, max_cpu_pct: 100 }',
    'load:',
    '  join_rate: 1000',
    '  drain: 1s',
    '  settle: 200ms',
    '  steps:',
    '    - { connections: 10, send_rate: 5, duration: 1s }',
    'slo: { p95_ms: 5000 }',
    '',
  ].join('\n');

describe('rtcap campaign --resume --dashboard', () => {
  it('links the files of entries finished before the resume, and never shows a linked entry running', async () => {
    const root = tempDir('rtcap-resume-dash-');
    writeFileSync(join(root, 'a.yaml'), profile('resume-a'));
    writeFileSync(join(root, 'b.yaml'), profile('resume-b'));
    writeFileSync(
      join(root, 'campaign.yaml'),
      'name: resume-dash\nentries:\n  - { profile: a.yaml }\n  - { profile: b.yaml }\n',
    );
    const out = join(root, 'out');
    const first = spawnSync(
      process.execPath,
      [BIN, 'campaign', join(root, 'campaign.yaml'), '--out', out, '--no-progress'],
      { encoding: 'utf8', timeout: 90_000 },
    );
    expect(first.status, first.stderr).toBe(0);
    // A crash during entry 2: campaign.json still says running.
    const crashed = JSON.parse(readFileSync(join(out, 'campaign.json'), 'utf8')) as CampaignState;
    crashed.entries[1].status = 'running';
    crashed.status = 'running';
    writeFileSync(join(out, 'campaign.json'), JSON.stringify(crashed));

    const rtcap = await startWithDashboard([
      'campaign',
      '--resume',
      out,
      '--no-progress',
      '--dashboard',
      '0',
      '--dashboard-linger',
      '60',
    ]);
    try {
      expect(rtcap.url, rtcap.stderr()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      const state = async () =>
        (await (await fetch(`${rtcap.url}api/state`)).json()) as LiveSnapshot;
      let snap = await state();
      // From the start: the kept entry is completed with its files linked.
      expect(snap.campaign!.entries[0].status).toBe('completed');
      expect(snap.campaign!.entries[0].files?.dir).toBe('01-a');
      const shownRunningWithFiles: number[] = [];
      for (let i = 0; i < 900 && snap.end === null; i++) {
        await sleep(100);
        snap = await state();
        for (const e of snap.campaign!.entries)
          if (e.status === 'running' && e.files !== null) shownRunningWithFiles.push(e.index);
      }
      expect(snap.end, rtcap.stderr()).not.toBeNull();
      expect(shownRunningWithFiles).toEqual([]);
      expect(snap.campaign!.entries.map((e) => [e.status, e.files?.dir ?? null])).toEqual([
        ['completed', '01-a'],
        ['completed', '02-b'],
      ]);
      const links = snap.campaign!.entries[0].files!.links.map((l) => l.name);
      expect(links).toEqual(expect.arrayContaining(['report.html', 'result.json']));
      const href = snap.campaign!.entries[0].files!.links.find((l) => l.name === 'result.json')!;
      const served = await fetch(`${rtcap.url}${href.href}`);
      expect(served.status).toBe(200);
      expect(((await served.json()) as { run_id: string }).run_id).toBe(
        (JSON.parse(readFileSync(join(out, '01-a', 'result.json'), 'utf8')) as { run_id: string })
          .run_id,
      );
    } finally {
      rtcap.child.kill('SIGINT');
      await rtcap.exited;
    }
  }, 180_000);
});
