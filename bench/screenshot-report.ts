/**
 * A PNG of a run's report.html, for people to look at. Renders the page in headless Chromium
 * (Debian's `chromium`), full page.
 *
 *   npx tsx bench/screenshot-report.ts reports/<run-id>            # → reports/<run-id>/report.png
 *   npx tsx bench/screenshot-report.ts reports/<run-id> --out x.png --width 1400
 *   npx tsx bench/screenshot-report.ts --fixture --out /tmp/report.png   # the test fixture run
 *   npx tsx bench/screenshot-report.ts reports/<run-id> --element '#chart-timeline'   # one part
 * only
 *
 * A run directory without report.html (or with an old one) gets it rebuilt from result.json first.
 */
import { copyFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readResultFile } from '../src/cli/report.js';
import { writeArtifacts } from '../src/artefacts/render.js';
import { launchChromium } from './support/browser.js';
import { tempDir } from '../test/support/temp-dir.js';

const args = process.argv.slice(2);
const VALUED = new Set(['--out', '--width', '--element']);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};

async function main(): Promise<void> {
  let dir: string;
  if (args.includes('--fixture')) {
    dir = tempDir('rtcap-shot-');
    const fixtures = new URL('../test/fixtures/', import.meta.url);
    copyFileSync(new URL('run-a.json', fixtures), join(dir, 'result.json'));
    copyFileSync(new URL('run-a.timeseries.ndjson', fixtures), join(dir, 'timeseries.ndjson'));
  } else {
    const given = args.find((a, i) => !a.startsWith('--') && !VALUED.has(args[i - 1] ?? ''));
    if (!given)
      throw new Error(
        'usage: screenshot-report.ts RUN_DIR [--out FILE.png] [--width PX] | --fixture --out FILE.png',
      );
    dir = resolve(given);
  }
  if (
    args.includes('--fixture') ||
    args.includes('--rebuild') ||
    !existsSync(join(dir, 'report.html'))
  ) {
    const r = readResultFile(dir);
    if (typeof r === 'string') throw new Error(r);
    for (const p of writeArtifacts(r, dir)) process.stderr.write(`warning: ${p}\n`);
  }
  const out = resolve(opt('out') ?? join(dir, 'report.png'));
  const width = Number(opt('width') ?? 1400);
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width, height: 900 }, deviceScaleFactor: 1 });
    // The report is self-contained: refuse anything that is not the file itself.
    await page.route('**/*', (route) =>
      route.request().url().startsWith('file:') ? route.continue() : route.abort(),
    );
    await page.goto(pathToFileURL(join(dir, 'report.html')).href, { waitUntil: 'load' });
    const element = opt('element');
    if (element) await page.locator(element).first().screenshot({ path: out });
    else await page.screenshot({ path: out, fullPage: true });
  } finally {
    await browser.close();
  }
  process.stderr.write(`wrote ${out}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`screenshot-report: ${(e as Error).message}\n`);
  process.exit(1);
});
