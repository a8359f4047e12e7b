/**
 * What the dashboard's browser suites share: the visible skip, rtcap started with a dashboard
 * (its printed address awaited, bounded), a live command's suite set up and torn down, and a
 * Chromium page whose every request is routed — any not to 127.0.0.1 is refused and recorded, so
 * a suite can fail on it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { CHROMIUM_PATH, chromiumAvailable, launchChromium } from '../../bench/support/browser.js';
import { tempDir } from './temp-dir.js';

const BIN = resolve(import.meta.dirname, '../../bin/rtcap.js');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface DashboardProcess {
  child: ChildProcess;
  exited: Promise<number | null>;
  /** The address it printed ('' when none came within 30 s). */
  url: string;
  stderr(): string;
}

/** `rtcap ARGS`, waiting (bounded: 30 s) for its `dashboard: URL` line. */
export async function startWithDashboard(args: string[]): Promise<DashboardProcess> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  let url = '';
  for (let i = 0; i < 300 && !url; i++) {
    url = /dashboard: (http:\/\/\S+)/.exec(stderr)?.[1] ?? '';
    if (!url) await sleep(100);
  }
  return { child, exited, url, stderr: () => stderr };
}

/** True when RTCAP_SKIP_BROWSER=1 asks to skip the browser suites; says so on stderr. */
export function browserSkipped(file: string, what: string): boolean {
  const skip = process.env.RTCAP_SKIP_BROWSER === '1';
  if (skip) process.stderr.write(`${file}: SKIPPED — RTCAP_SKIP_BROWSER=1: ${what}\n`);
  return skip;
}

export interface LiveSuite {
  browser: Browser;
  rtcap: DashboardProcess;
  /** The command's --out directory. */
  out: string;
}

/**
 * A suite's `rtcap COMMAND <dir>/MAIN --out <dir>/out --dashboard 0` (the page kept 60 s after
 * the end), `files` written into a new temporary <dir> first, and Chromium: started before the
 * suite's tests (its address checked), both ended after them.
 */
export function liveSuite(
  command: 'run' | 'sweep' | 'campaign',
  files: Record<string, string>,
  main: string,
): LiveSuite {
  const suite = {} as LiveSuite;
  beforeAll(async () => {
    requireChromium();
    const dir = tempDir(`rtcap-dash-${command}-`);
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    suite.out = join(dir, 'out');
    const args = ['--out', suite.out, '--no-progress', '--dashboard', '0'];
    suite.rtcap = await startWithDashboard([
      command,
      join(dir, main),
      ...args,
      '--dashboard-linger',
      '60',
    ]);
    expect(suite.rtcap.url, suite.rtcap.stderr()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    suite.browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await suite.browser?.close();
    suite.rtcap?.child.kill('SIGINT');
    await suite.rtcap?.exited;
  });
  return suite;
}

export function requireChromium(): void {
  if (!chromiumAvailable())
    throw new Error(
      `no Chromium at ${CHROMIUM_PATH}: install Debian's package (apt-get install -y chromium), or set RTCAP_SKIP_BROWSER=1 to skip this suite`,
    );
}

/**
 * A page at `url` whose requests are all routed: those not to 127.0.0.1 are refused and listed in
 * `outside`.
 */
export async function guardedPage(
  browser: Browser,
  url: string,
  seen: { outside: string[]; requested: string[] },
): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  await page.route('**/*', (route) => {
    const u = route.request().url();
    seen.requested.push(u);
    if (new URL(u).hostname !== '127.0.0.1') {
      seen.outside.push(u);
      return route.abort();
    }
    return route.continue();
  });
  await page.goto(url);
  return page;
}

/**
 * Waits (bounded by `timeoutMs`) until the expression `f` is true in the page. Polled with
 * page.evaluate: waitForFunction evaluates strings with eval, which the page's policy forbids.
 */
export async function until(page: Page, f: string, timeoutMs: number): Promise<void> {
  const t0 = Date.now();
  while (!(await page.evaluate(`(() => { try { return !!(${f}); } catch { return false; } })()`))) {
    if (Date.now() - t0 > timeoutMs)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${f}`);
    await sleep(200);
  }
}
