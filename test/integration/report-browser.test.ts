/**
 * report.html in a real browser: headless Chromium (Debian's `chromium` package, driven by
 * playwright-core) opens the page from disk with every network request refused, and every
 * chart must be there as SVG with drawn paths of non-zero size.
 *
 * Without /usr/bin/chromium this suite fails, saying how to install it (.ci/run installs it);
 * RTCAP_SKIP_BROWSER=1 skips it instead, visibly.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import {
  CHROMIUM_PATH,
  chromiumAvailable,
  launchChromium,
  openOffline,
} from '../../bench/support/browser.js';
import { writeArtifacts, type ResultFile } from '../../src/artefacts/render.js';
import { loadRun } from '../fixtures/index.js';
import { tempDir } from '../support/temp-dir.js';

const skip = process.env.RTCAP_SKIP_BROWSER === '1';
if (skip)
  process.stderr.write(
    'report-browser.test.ts: SKIPPED — RTCAP_SKIP_BROWSER=1: report.html is not checked in a browser\n',
  );

interface ChartInfo {
  id: string;
  empty: boolean;
  svgs: number;
  paths: number;
  drawnPaths: number;
  width: number;
  height: number;
}

describe.skipIf(skip)('report.html in headless Chromium', () => {
  let browser: Browser;
  let dir: string;
  beforeAll(async () => {
    if (!chromiumAvailable()) {
      throw new Error(
        `no Chromium at ${CHROMIUM_PATH}: install Debian's package (apt-get install -y chromium; .ci/run does), or set RTCAP_SKIP_BROWSER=1 to skip this suite`,
      );
    }
    dir = tempDir('rtcap-browser-');
    copyFileSync(
      new URL('../fixtures/run-a.timeseries.ndjson', import.meta.url),
      join(dir, 'timeseries.ndjson'),
    );
    expect(writeArtifacts(loadRun('run-a') as ResultFile, dir)).toEqual([]);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('shows every chart as SVG with drawn, non-empty paths, and fetches nothing', async () => {
    const { page, requested } = await openOffline(
      browser,
      pathToFileURL(join(dir, 'report.html')).href,
    );
    expect(await page.title()).toMatch(/^rtcap — broadcast-public-sweep/);

    const charts = (await page.evaluate(`[...document.querySelectorAll('figure.chart')].map((f) => {
      const svg = f.querySelector('svg');
      const box = svg ? svg.getBoundingClientRect() : { width: 0, height: 0 };
      const paths = [...f.querySelectorAll('svg path')];
      const drawn = paths.filter((p) => {
        const b = p.getBBox();
        return (p.getAttribute('d') || '').length > 10 && (b.width > 0 || b.height > 0);
      });
      return { id: f.dataset.chart, empty: f.dataset.empty === 'true', svgs: f.querySelectorAll('svg').length, paths: paths.length, drawnPaths: drawn.length, width: box.width, height: box.height };
    })`)) as ChartInfo[];

    expect(charts.map((c) => c.id)).toEqual([
      'latency-vs-load',
      'delivery-vs-load',
      'cpu-vs-deliveries',
      'memory-vs-connections',
      'timeline',
      'latency-histogram',
      'resources',
    ]);
    for (const c of charts) {
      // The fixture measures every chart's figures: none may fall back to its "no data" caption.
      expect(c, c.id).toMatchObject({ empty: false, svgs: 1 });
      expect(c.width, c.id).toBeGreaterThan(300);
      expect(c.height, c.id).toBeGreaterThan(150);
      expect(c.drawnPaths, c.id).toBeGreaterThan(3);
    }
    // The tables render too: the capacity table has its rows.
    expect(await page.locator('table[data-table="capacity"] tbody tr').count()).toBeGreaterThan(0);
    expect(requested).toEqual([]);
    await page.close();
  });
});
