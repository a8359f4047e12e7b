/**
 * A PNG of the live dashboard while a run goes: starts `rtcap run PROFILE --dashboard`, opens
 * the page in headless Chromium (Debian's `chromium`; every request not to 127.0.0.1 refused),
 * waits until --after-steps steps have finished, and writes the page as it is then.
 *
 *   npx tsx bench/screenshot-dashboard.ts profiles/quickstart.yaml --out docs/dashboard.png
 *   npx tsx bench/screenshot-dashboard.ts profiles/quickstart.yaml --after-steps 3 --width 1400
 *   npx tsx bench/screenshot-dashboard.ts profiles/broadcast-public-sweep.yaml --sweep --out
 * sweep.png
 *
 * The run is stopped (Ctrl-C, as a user would) once the picture is taken; its directory is a
 * temporary one, removed after.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { launchChromium } from './support/browser.js';
import { tempDir } from '../test/support/temp-dir.js';

const args = process.argv.slice(2);
const opt = (name: string, dflt: string): string => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const VALUED = new Set(['--out', '--width', '--after-steps']);
const profile = args.find((a, i) => !a.startsWith('--') && !VALUED.has(args[i - 1] ?? ''));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  if (!profile)
    throw new Error(
      'usage: screenshot-dashboard.ts PROFILE [--out FILE.png] [--after-steps N] [--width PX] [--sweep]',
    );
  const out = resolve(opt('out', 'dashboard.png'));
  const afterSteps = Number(opt('after-steps', '2'));
  const dir = tempDir('rtcap-dash-shot-');
  const bin = resolve(import.meta.dirname, '../bin/rtcap.js');
  const command = args.includes('--sweep') ? 'sweep' : 'run';
  const child = spawn(
    process.execPath,
    [bin, command, profile, '--out', join(dir, 'out'), '--no-progress', '--dashboard'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
  const browser = await launchChromium();
  try {
    let url: string | undefined;
    for (let i = 0; i < 600 && !url; i++) {
      url = /dashboard: (http:\/\/\S+)/.exec(stderr)?.[1];
      if (!url) await sleep(100);
    }
    if (!url) throw new Error(`no dashboard address printed:\n${stderr}`);
    const page = await browser.newPage({
      viewport: { width: Number(opt('width', '1400')), height: 900 },
      deviceScaleFactor: 1,
    });
    await page.route('**/*', (r) =>
      new URL(r.request().url()).hostname === '127.0.0.1' ? r.continue() : r.abort(),
    );
    await page.goto(url);
    // Bounded: ten minutes for the steps asked for.
    for (let i = 0; i < 3000; i++) {
      const done = (await page.evaluate(
        'window.rtcapState ? window.rtcapState.steps.length : 0',
      )) as number;
      if (done >= afterSteps) break;
      await sleep(200);
    }
    await sleep(1500); // the next step's first seconds on the charts
    await page.screenshot({ path: out, fullPage: true });
    process.stderr.write(`wrote ${out}\n`);
  } finally {
    await browser.close();
    child.kill('SIGINT');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
