/**
 * `rtcap dashboard DIR` in a real browser (headless Chromium, as the report test drives it),
 * over a folder of fixture runs: two runs (one with its report written, one with result.json
 * only) and a campaign of two entries with its capacity table. Every run is listed with its
 * verdicts and headline, a click opens a report, two picked runs open the compare view
 * `rtcap compare` writes, the campaign's capacity table opens in place, its capacity report
 * opens and its relative links lead to each entry's report, no request leaves the machine, and
 * the folder is left exactly as it was.
 *
 * Without /usr/bin/chromium this suite fails, saying how to install it; RTCAP_SKIP_BROWSER=1
 * skips it instead, visibly.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../../bench/support/browser.js';
import { renderComparisonHtml } from '../../src/report/compare-html.js';
import { loadRun } from '../fixtures/index.js';
import { CAMPAIGN_ENTRIES, runsFolder } from '../support/runs-folder.js';
import {
  browserSkipped,
  guardedPage,
  requireChromium,
  startWithDashboard,
  type DashboardProcess,
} from '../support/dashboard-browser.js';

const skip = browserSkipped(
  'dashboard-browse-browser.test.ts',
  'rtcap dashboard is not checked in a browser',
);

/** Every file under `dir` with its size and mtime: what "writes nothing" is checked against. */
function listing(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .sort()
    .map((p) => {
      const s = statSync(join(dir, p));
      return `${p} ${s.size} ${s.mtimeMs}`;
    });
}

describe.skipIf(skip)('rtcap dashboard DIR in headless Chromium', () => {
  let browser: Browser;
  let rtcap: DashboardProcess;
  let root: string;
  let before: string[];

  beforeAll(async () => {
    requireChromium();
    root = runsFolder();
    before = listing(root);
    rtcap = await startWithDashboard(['dashboard', root, '--port', '0']);
    expect(rtcap.url, rtcap.stderr()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    rtcap?.child.kill('SIGINT');
    // Ctrl-C ends the dashboard as the exit-code table says: 130 (docs/COMMANDS.md).
    expect(await rtcap?.exited).toBe(130);
  });

  it('lists every run and the campaign, opens a report, a comparison and the capacity table; fetches nothing else; writes nothing', async () => {
    const outside: string[] = [];
    const page = await guardedPage(browser, rtcap.url, { outside, requested: [] });
    const rows = page.locator('tr[data-run]');
    await rows.first().waitFor({ timeout: 15_000 });
    expect(
      (await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-run')))).sort(),
    ).toEqual([
      'campaign/01-seed-002-s1.1-connections',
      'campaign/02-seed-002-s1.2-deliveries',
      'run-a',
      'run-b',
    ]);
    // run-a's verdicts, as its result has them.
    const a = loadRun('run-a');
    const counts: Record<string, number> = {};
    for (const s of a.steps) counts[s.verdict] = (counts[s.verdict] ?? 0) + 1;
    expect(
      JSON.parse(
        (await page.locator('tr[data-run="run-a"] [data-verdicts]').getAttribute('data-verdicts'))!,
      ),
    ).toEqual(counts);
    expect(await page.locator('tr[data-run="run-a"] td.headline .note').textContent()).toMatch(
      /^The built-in server on this machine carried /,
    );

    // The campaign's capacity table, in place: all 12 rows.
    await page.locator('details[data-capacity="campaign"] summary').click();
    expect(
      await page
        .locator('details[data-capacity="campaign"] table[data-table="capacity"] tbody tr')
        .count(),
    ).toBe(12);

    // The campaign's capacity report, and through its relative links each entry's report.
    await page.locator('tr[data-campaign="campaign"] a', { hasText: 'capacity report' }).click();
    await page.waitForLoadState('load');
    expect(await page.locator('table[data-table="capacity"] tbody tr').count()).toBe(12);
    const hrefs = await page
      .locator('a[href]')
      .evaluateAll((as) => as.map((a) => a.getAttribute('href')!));
    const entryReports = [...new Set(hrefs.map((h) => h.replace(/#.*$/, '')))];
    expect(entryReports.sort()).toEqual(
      CAMPAIGN_ENTRIES.map((n, i) => `0${i + 1}-${n}/report.html`),
    );
    for (const [i, href] of entryReports.entries()) {
      await page.locator(`a[href^="${href}"]`).first().click();
      await page.waitForLoadState('load');
      expect(await page.title()).toMatch(
        new RegExp(`^rtcap — ${loadRun(CAMPAIGN_ENTRIES[i]).profile.name}`),
      );
      expect(await page.locator('figure.chart svg').count()).toBeGreaterThan(0);
      await page.goBack();
      await page.waitForLoadState('load');
    }
    await page.goBack();

    // A report one click away: run-b has no report.html on disk; it is rendered, not written.
    await page.locator('tr[data-run="run-b"] a', { hasText: 'report' }).click();
    await page.waitForLoadState('load');
    expect(await page.title()).toMatch(/^rtcap — broadcast-public-sweep/);
    expect(await page.locator('figure.chart svg').count()).toBeGreaterThan(0);
    await page.goBack();

    // Two runs picked (A first), compared side by side as `rtcap compare A B --out x.html` writes
    // it.
    await rows.first().waitFor({ timeout: 15_000 });
    await page.locator('input[data-pick="run-a"]').check();
    await page.locator('input[data-pick="run-b"]').check();
    await page.locator('#compare').click();
    await page.waitForLoadState('load');
    const html = await page.content();
    const expected = renderComparisonHtml(loadRun('run-a'), loadRun('run-b'));
    expect(await page.title()).toBe(/<title>(.*)<\/title>/.exec(expected)![1]);
    expect(html).toContain('<table');

    expect(outside).toEqual([]);
    expect(listing(root)).toEqual(before);
  }, 120_000);
});
