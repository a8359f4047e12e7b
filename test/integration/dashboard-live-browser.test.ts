/**
 * `rtcap run --dashboard` in a real browser: a short two-step run against the built-in server
 * with the page open in headless Chromium (Debian's `chromium`, driven by playwright-core).
 * The connections and delivered/s charts change between two screenshots, a step's verdict
 * appears as it lands, the page's last figures equal the run's result.json and the last line of
 * its timeseries.ndjson, a reloaded page catches up, the finished page links to the run's
 * files, and no request leaves the machine (every request is routed; any not to 127.0.0.1 fails).
 *
 * Without /usr/bin/chromium this suite fails, saying how to install it; RTCAP_SKIP_BROWSER=1
 * skips it instead, visibly.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/result/result.js';
import type { TimeseriesPoint } from '../../src/result/timeseries-point.js';
import { browserSkipped, guardedPage, liveSuite, until } from '../support/dashboard-browser.js';

const skip = browserSkipped(
  'dashboard-live-browser.test.ts',
  'the live dashboard is not checked in a browser',
);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const PROFILE = [
  'name: dashboard-live',
  'scenario: broadcast-public',
  'target:',
  '  server: { database: false }',
  'generator: { max_event_loop_lag_p99_ms: 2000, max_cpu_pct: 100 }',
  'load:',
  '  join_rate: 100',
  '  drain: 2s',
  '  warmup: 1s',
  '  steps:',
  '    - { connections: 20, send_rate: 10, duration: 6s }',
  '    - { connections: 40, send_rate: 10, duration: 6s }',
  '',
].join('\n');

describe.skipIf(skip)('the live dashboard in headless Chromium', () => {
  const live = liveSuite('run', { 'profile.yaml': PROFILE }, 'profile.yaml');
  const seen = { outside: [] as string[], requested: [] as string[] };
  const { outside, requested } = seen;

  const openPage = () => guardedPage(live.browser, live.rtcap.url, seen);

  it("follows the run: charts change, verdicts land, the last figures are the result's, nothing leaves the machine", async () => {
    const page = await openPage();
    // Step 1's steady phase (bounded: 60 s: the built-in server starts first).
    await until(page, `(window.rtcapState.seconds.slice(-1)[0] || {}).phase === 'steady'`, 60_000);
    const shot = () =>
      Promise.all(['#chart-connections', '#chart-rates'].map((s) => page.locator(s).screenshot()));
    const [conn1, rates1] = await shot();
    // Into step 2: its ramp raises the connections, its sends the deliveries.
    await until(
      page,
      `(window.rtcapState.seconds.slice(-1)[0] || {}).step === 2 && window.rtcapState.seconds.slice(-1)[0].joined === 40`,
      60_000,
    );
    await sleep(2000);
    const [conn2, rates2] = await shot();
    expect(conn2.equals(conn1)).toBe(false);
    expect(rates2.equals(rates1)).toBe(false);

    // Step 1's verdict appears as it lands, with its reasons.
    const verdict = page.locator('table[data-table="steps"] tr[data-step="1"] td[data-verdict]');
    await verdict.waitFor({ timeout: 30_000 });
    expect(['stable', 'degraded', 'broken', 'generator-bound', 'inconclusive']).toContain(
      await verdict.textContent(),
    );
    expect(
      await page.locator('table[data-table="steps"] tr[data-step="1"] .reasons li').count(),
    ).toBeGreaterThan(0);

    // The end: links to the run's files (bounded: 60 s).
    await page.locator('#end [data-links]').waitFor({ timeout: 60_000 });
    const result = JSON.parse(readFileSync(join(live.out, 'result.json'), 'utf8')) as RunResult;
    const lines = readFileSync(join(live.out, 'timeseries.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as TimeseriesPoint);
    const state = (await page.evaluate('window.rtcapState')) as {
      seconds: Array<Record<string, unknown>>;
      steps: Array<Record<string, unknown>>;
    };
    // Every second of the run, the timeseries.ndjson line field for field.
    expect(state.seconds.length).toBe(lines.length);
    const last = lines[lines.length - 1];
    for (const [k, v] of Object.entries(last))
      expect([k, state.seconds[state.seconds.length - 1][k]]).toEqual([k, v]);
    // The figures shown are those values.
    const shown = async (figure: string) =>
      JSON.parse((await page.locator(`[data-figure="${figure}"]`).getAttribute('data-value'))!);
    expect(await shown('delivered')).toBe(last.delivered_per_s);
    expect(await shown('sent')).toBe(last.sent_per_s);
    expect((await shown('connections')).joined).toBe(last.joined);
    expect((await shown('latency')).p95).toBe(last.delivery_p95_ms);
    // Each step as result.json has it; the delivery tile is the last step's.
    expect(state.steps.length).toBe(result.steps.length);
    for (const [i, s] of result.steps.entries()) {
      const row = page.locator(`table[data-table="steps"] tr[data-step="${s.index}"]`);
      expect(await row.locator('td[data-verdict]').textContent()).toBe(s.verdict);
      const values = await row
        .locator('td[data-value]')
        .evaluateAll((tds) => tds.map((td) => JSON.parse(td.getAttribute('data-value')!)));
      expect(values).toEqual([
        s.connections.joined,
        s.connections.failed,
        s.rates.sent_per_s,
        s.rates.delivered_per_s,
        s.delivery_rate,
        s.latency_ms.p50,
        s.latency_ms.p95,
        s.latency_ms.p99,
        s.server.cpu_pct,
      ]);
      expect(state.steps[i].verdict_reasons).toEqual(s.verdict_reasons);
    }
    expect(await shown('delivery')).toBe(result.steps[result.steps.length - 1].delivery_rate);

    // The finished page's links are the run's own files.
    const resultLink = await page
      .locator('#end a', { hasText: 'result.json' })
      .getAttribute('href');
    const served = await page.evaluate(
      `fetch(${JSON.stringify(resultLink)}).then((r) => r.json())`,
    );
    expect(served).toEqual(result);
    await page.locator('#end a', { hasText: 'report.html' }).click();
    await page.waitForLoadState('load');
    expect(await page.title()).toMatch(/^rtcap — dashboard-live/);
    expect(outside).toEqual([]);
    expect(requested.some((u) => u.endsWith('/assets/echarts.min.js'))).toBe(true);
  }, 180_000);

  it('a page opened after the run catches up from the snapshot: every second and step', async () => {
    const page = await openPage();
    await until(page, 'window.rtcapState && window.rtcapState.end !== null', 10_000);
    const lines = readFileSync(join(live.out, 'timeseries.ndjson'), 'utf8').trim().split('\n');
    const result = JSON.parse(readFileSync(join(live.out, 'result.json'), 'utf8')) as RunResult;
    expect(await page.evaluate('window.rtcapState.seconds.length')).toBe(lines.length);
    expect(
      await page.locator('table[data-table="steps"] td[data-verdict]').allTextContents(),
    ).toEqual(result.steps.map((s) => s.verdict));
    expect(outside).toEqual([]);
  }, 30_000);
});
