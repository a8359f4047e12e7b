/**
 * The campaign's report.html in headless Chromium: it opens with one chart per §7 row (12), each
 * an SVG with drawn paths, above the capacity table, and each chart's link opens its run's
 * report. The runs are the seed 002 fixtures and a write-only sweep, written as a campaign
 * directory of run directories. Without /usr/bin/chromium this suite fails saying how to install
 * it; RTCAP_SKIP_BROWSER=1 skips it, visibly.
 */
import { existsSync, mkdirSync } from 'node:fs';
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
import { buildCapacityFile } from '../../src/capacity/table.js';
import { writeArtifacts, type ResultFile } from '../../src/artefacts/render.js';
import type { RunResult } from '../../src/result/result.js';
import { relativeTo, writeCapacityFiles } from '../../src/campaign/capacity-output.js';
import { SEED_002_RUNS, loadRun, makeRun, makeStep } from '../fixtures/index.js';
import { tempDir } from '../support/temp-dir.js';

const skip = process.env.RTCAP_SKIP_BROWSER === '1';
if (skip)
  process.stderr.write(
    'capacity-browser.test.ts: SKIPPED — RTCAP_SKIP_BROWSER=1: the campaign report is not checked in a browser\n',
  );

/** A write-only sweep: acknowledged sends rising with CPU, the last step degraded. */
function writeOnlyRun(): RunResult {
  const steps = [1000, 2000, 4000, 8000].map((rate, i) =>
    makeStep(i + 1, {
      params: { send_rate: rate },
      rates: { sent_per_s: rate, acked_per_s: rate, delivered_per_s: 0 },
      verdict: i === 3 ? 'degraded' : 'stable',
      server: { cpu_pct: 5 + rate / 200 },
      messages: { expected: 0, received: 0 },
    }),
  );
  return makeRun('write-only', steps, { run_id: 'write-only-sweep' });
}

interface Fig {
  id: string;
  svgs: number;
  drawn: number;
  width: number;
  href: string | null;
}

describe.skipIf(skip)('the campaign report in headless Chromium', () => {
  let browser: Browser;
  let dir: string;
  beforeAll(async () => {
    if (!chromiumAvailable())
      throw new Error(
        `no Chromium at ${CHROMIUM_PATH}: apt-get install -y chromium (.ci/run does), or set RTCAP_SKIP_BROWSER=1 to skip this suite`,
      );
    dir = tempDir('rtcap-capacity-browser-');
    const runs = [
      ...SEED_002_RUNS.map((n) => ({ name: n, result: loadRun(n) })),
      { name: 'write-only', result: writeOnlyRun() },
    ];
    const sources = runs.map((r, i) => {
      const d = join(dir, `${String(i + 1).padStart(2, '0')}-${r.name}`);
      mkdirSync(d);
      expect(writeArtifacts(r.result as ResultFile, d)).toEqual([]);
      return { dir: d, result: r.result };
    });
    writeCapacityFiles(
      dir,
      buildCapacityFile(relativeTo(dir, sources)),
      'Capacity — campaign browser-test',
    );
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('opens with 12 charts, one per row, drawn as SVG above the table, each linking to its run report', async () => {
    const { page, requested } = await openOffline(
      browser,
      pathToFileURL(join(dir, 'report.html')).href,
    );
    const figs =
      (await page.evaluate(`[...document.querySelectorAll('figure.row-chart')].map((f) => {
      const svg = f.querySelector('svg');
      const drawn = [...f.querySelectorAll('svg path')].filter((p) => { const b = p.getBBox(); return (p.getAttribute('d') || '').length > 10 && (b.width > 0 || b.height > 0); });
      const a = f.querySelector('a');
      return { id: f.dataset.chart, svgs: f.querySelectorAll('svg').length, drawn: drawn.length, width: svg ? svg.getBoundingClientRect().width : 0, href: a ? a.href : null };
    })`)) as Fig[];
    expect(figs.map((f) => f.id)).toEqual([
      'row-public_connections',
      'row-private_connections',
      'row-public_deliveries',
      'row-private_sends',
      'row-private_deliveries',
      'row-write_only_sends',
      'row-join_rate',
      'row-message_size',
      'row-cdc_subscribers',
      'row-cdc_changes',
      'row-presence_members',
      'row-presence_deliveries',
    ]);
    for (const f of figs) {
      expect(f, f.id).toMatchObject({ svgs: 1 });
      expect(f.width, f.id).toBeGreaterThan(250);
      expect(f.drawn, f.id).toBeGreaterThan(3);
      expect(f.href, f.id).toMatch(/^file:.*\/report\.html$/);
    }
    // The charts come before the table.
    expect(
      await page.evaluate(
        `document.querySelector('.row-charts').compareDocumentPosition(document.querySelector('table[data-table="capacity"]')) & Node.DOCUMENT_POSITION_FOLLOWING`,
      ),
    ).toBeTruthy();
    // Every link opens a run's report.
    for (const href of new Set(figs.map((f) => f.href!))) {
      const p = await browser.newPage();
      await p.goto(href, { waitUntil: 'load' });
      expect(await p.title(), href).toMatch(/^rtcap — /);
      await p.close();
    }
    await page.screenshot({ path: join(dir, 'report.png'), fullPage: false });
    expect(existsSync(join(dir, 'report.png'))).toBe(true);
    expect(requested).toEqual([]);
    process.stderr.write(`capacity-browser.test.ts: screenshot ${join(dir, 'report.png')}\n`);
    await page.close();
  }, 120_000);
});
