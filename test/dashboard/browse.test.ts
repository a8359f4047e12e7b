/**
 * `rtcap dashboard DIR` over a real socket, on a folder of fixture runs with a campaign: a
 * campaign report's relative links to its entries' reports resolve to those reports, whether
 * DIR holds the campaign or is the campaign's own directory (then the campaign is listed, its
 * id empty, its files at runs/<file>).
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { serveBrowse } from '../../src/dashboard/browse.js';
import type { BrowseIndex } from '../../src/dashboard/browse-index.js';
import type { DashboardServer } from '../../src/dashboard/server.js';
import { loadRun } from '../fixtures/index.js';
import { CAMPAIGN_ENTRIES, runsFolder } from '../support/runs-folder.js';

let server: DashboardServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function text(url: URL): Promise<{ status: number; body: string }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.text() };
}

/** The campaign's report, then every page its links name (fragments dropped). */
async function followCampaignReport(dir: string): Promise<{
  index: BrowseIndex;
  pages: Array<{ href: string; status: number; title: string }>;
}> {
  server = await serveBrowse(dir, { port: 0 });
  const base = new URL(server.url);
  const index = (await (await fetch(new URL('api/runs', base))).json()) as BrowseIndex;
  const reportUrl = new URL(index.campaigns[0].files.report!, base);
  const report = await text(reportUrl);
  expect(report.status).toBe(200);
  const hrefs = [...report.body.matchAll(/href="([^"#]+)[^"]*"/g)].map((m) => m[1]);
  const pages = [];
  for (const href of [...new Set(hrefs)].sort()) {
    const page = await text(new URL(href, reportUrl));
    pages.push({ href, status: page.status, title: /<title>([^<]*)</.exec(page.body)?.[1] ?? '' });
  }
  return { index, pages };
}

const entryPages = CAMPAIGN_ENTRIES.map((n, i) => ({
  href: `0${i + 1}-${n}/report.html`,
  status: 200,
  title: expect.stringMatching(new RegExp(`^rtcap — ${loadRun(n).profile.name}`)),
}));

describe('serveBrowse', () => {
  it("a folder holding a campaign: the capacity report's links open its entries' reports", async () => {
    const { index, pages } = await followCampaignReport(runsFolder());
    expect(index.campaigns[0].files.report).toBe('runs/campaign/report.html');
    expect(pages).toEqual(entryPages);
  });

  it("the campaign's own directory: the campaign is listed and its report's links open", async () => {
    const { index, pages } = await followCampaignReport(join(runsFolder(), 'campaign'));
    expect(index.runs).toEqual([]);
    expect(index.campaigns.map((c) => [c.id, c.files.report])).toEqual([['', 'runs/report.html']]);
    expect(index.campaigns[0].entries.map((e) => e.id)).toEqual(
      CAMPAIGN_ENTRIES.map((n, i) => `0${i + 1}-${n}`),
    );
    expect(pages).toEqual(entryPages);
  });
});
