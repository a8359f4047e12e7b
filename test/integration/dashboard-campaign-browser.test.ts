/**
 * `rtcap campaign --dashboard` in a real browser (headless Chromium, as the run's suite drives
 * it): a campaign of two entries against the built-in server — a run, then a sweep over two
 * values. The page lists the entries with their state and the time spent: the running one's time
 * grows while the next waits; the finished one links to its files; the sweep entry's search
 * shows while it runs. At the end every entry's state and time is campaign.json's, the page links
 * to the campaign's capacity report, and that report's relative links open each entry's report.
 * No request leaves the machine.
 *
 * Without /usr/bin/chromium this suite fails, saying how to install it; RTCAP_SKIP_BROWSER=1
 * skips it instead, visibly.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CampaignState } from '../../src/campaign/state.js';
import { browserSkipped, guardedPage, liveSuite, until } from '../support/dashboard-browser.js';

const skip = browserSkipped(
  'dashboard-campaign-browser.test.ts',
  'the live campaign view is not checked in a browser',
);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const profile = (name: string, duration: string, sweep: string[] = []) =>
  [
    `name: ${name}`,
    'scenario: broadcast-public',
    'target:',
    '  server: { database: false }',
    'generator: { max_event_loop_lag_p99_ms: 2000, max_cpu_pct: 100 }',
    'load:',
    '  join_rate: 1000',
    '  drain: 1s',
    '  settle: 300ms',
    '  steps:',
    `    - { connections: 20, send_rate: 5, duration: ${duration} }`,
    ...sweep,
    'slo: { p95_ms: 5000 }',
    '',
  ].join('\n');

const CAMPAIGN = [
  'name: dash-campaign',
  'entries:',
  '  - { profile: run.yaml, name: steady }',
  '  - { profile: sweep.yaml, name: search, sweep: true }',
  '',
].join('\n');

/** The page's campaign table, row by row: state, the time-spent value, and the files linked. */
const tableRows = `[...document.querySelectorAll('table[data-table="campaign"] tbody tr')].map((tr) => ({
  entry: Number(tr.getAttribute('data-entry')),
  kind: tr.children[2].textContent,
  state: tr.querySelector('[data-status]').getAttribute('data-status'),
  wall_s: JSON.parse(tr.children[4].getAttribute('data-value')),
  files: [...tr.querySelectorAll('a')].map((a) => a.textContent),
}))`;

interface Row {
  entry: number;
  kind: string;
  state: string;
  wall_s: number;
  files: string[];
}

describe.skipIf(skip)('the live campaign view in headless Chromium', () => {
  const live = liveSuite(
    'campaign',
    {
      'run.yaml': profile('dash-steady', '6s'),
      'sweep.yaml': profile('dash-search', '2s', [
        'sweep: { driver: connections, values: [10, 20] }',
      ]),
      'campaign.yaml': CAMPAIGN,
    },
    'campaign.yaml',
  );
  const seen = { outside: [] as string[], requested: [] as string[] };

  it("lists the entries with their state and time spent as they run, then campaign.json's, and opens the capacity report and its links", async () => {
    const page = await guardedPage(live.browser, live.rtcap.url, seen);
    const rows = async () => (await page.evaluate(tableRows)) as Row[];

    // Entry 1 running (in its steady phase), entry 2 waiting; entry 1's time grows.
    await until(
      page,
      `window.rtcapState.campaign && window.rtcapState.run && window.rtcapState.run.entry === 1 && (window.rtcapState.seconds.slice(-1)[0] || {}).phase === 'steady'`,
      90_000,
    );
    const first = await rows();
    expect(first.map((r) => [r.entry, r.kind, r.state])).toEqual([
      [1, 'run', 'running'],
      [2, 'sweep', 'pending'],
    ]);
    await sleep(3000);
    const later = await rows();
    expect(later[0].state).toBe('running');
    expect(later[0].wall_s).toBeGreaterThan(first[0].wall_s);

    // Entry 2 running: entry 1 finished, its files linked; the sweep's search shows.
    await until(
      page,
      'window.rtcapState.run.entry === 2 && window.rtcapState.sweep && window.rtcapState.sweep.points.length >= 1',
      120_000,
    );
    const second = await rows();
    expect(second.map((r) => [r.entry, r.state])).toEqual([
      [1, 'completed'],
      [2, 'running'],
    ]);
    expect(second[0].files).toEqual(expect.arrayContaining(['report.html', 'result.json']));
    expect(await page.locator('#sweep').isVisible()).toBe(true);
    expect(await page.locator('#sweep-text').textContent()).toMatch(
      /^driver connections \(values\): \d+ values? so far/,
    );

    // The end: each entry's state and time are campaign.json's.
    await page.locator('#end [data-links]').waitFor({ timeout: 180_000 });
    const state = JSON.parse(
      readFileSync(join(live.out, 'campaign.json'), 'utf8'),
    ) as CampaignState;
    expect(await page.locator('#campaign-table [data-status]').first().textContent()).toBe(
      state.status,
    );
    expect((await rows()).map((r) => [r.entry, r.state, r.wall_s])).toEqual(
      state.entries.map((e) => [e.index, e.status, e.wall_s]),
    );
    expect(state.entries.every((e) => e.wall_s > 0)).toBe(true);

    // The campaign's capacity report, and through its relative links each entry's report.
    await page.locator('#end a', { hasText: 'report.html' }).click();
    await page.waitForLoadState('load');
    expect(await page.locator('table[data-table="capacity"]').count()).toBe(1);
    const hrefs = await page
      .locator('a[href]')
      .evaluateAll((as) => as.map((a) => a.getAttribute('href')!.replace(/#.*$/, '')));
    const entryReports = [...new Set(hrefs)];
    expect(entryReports.length).toBeGreaterThan(0);
    const names = new Map(state.entries.map((e) => [e.dir, e.name]));
    for (const href of entryReports) {
      const dir = href.replace(/\/report\.html$/, '');
      expect(names.has(dir), href).toBe(true);
      await page.locator(`a[href^="${href}"]`).first().click();
      await page.waitForLoadState('load');
      expect(await page.title()).toMatch(/^rtcap — dash-(steady|search)/);
      await page.goBack();
      await page.waitForLoadState('load');
    }
    expect(seen.outside).toEqual([]);
  }, 480_000);
});
