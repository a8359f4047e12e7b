/**
 * Headless Chromium for looking at reports: Debian's `chromium` package driven by
 * playwright-core (no browser download). The flags keep it off the network — this machine's
 * closed network refuses Chromium's background connections, and a report must not need any.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.RTCAP_CHROMIUM ?? '/usr/bin/chromium';

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function chromiumAvailable(): boolean {
  return existsSync(CHROMIUM_PATH);
}

export async function launchChromium(): Promise<Browser> {
  if (!chromiumAvailable())
    throw new Error(
      `no Chromium at ${CHROMIUM_PATH}: apt-get install -y chromium (or set RTCAP_CHROMIUM)`,
    );
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    // playwright-core gives each launch a fresh, empty profile directory of its own.
    args: CHROMIUM_FLAGS,
  });
}

/**
 * A page of `browser` that loads `url` (a file: URL) with every other request refused; the
 * refused URLs are collected in `requested`, so a test can check a report fetched nothing.
 */
export async function openOffline(
  browser: Browser,
  url: string,
): Promise<{ page: Page; requested: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const requested: string[] = [];
  await page.route('**/*', (route) => {
    const u = route.request().url();
    if (u.startsWith('file:')) return route.continue();
    requested.push(u);
    return route.abort();
  });
  await page.goto(url, { waitUntil: 'load' });
  return { page, requested };
}
