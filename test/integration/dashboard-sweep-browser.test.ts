/**
 * `rtcap sweep --dashboard` in a real browser (headless Chromium, as the run's suite drives it):
 * a search over connections against the built-in server told to admit at most 60 users, so the
 * knee is known to lie at or below 60. While the sweep runs the page shows the search so far —
 * the driver's values against first-receipt p95 and server CPU, and the knee once a step past it
 * has landed; at the end it shows the sweep record result.json holds (points, knee, stop reason).
 * A second page closed mid-run and an event stream cut off mid-run do not stop the run, and no
 * request leaves the machine.
 *
 * Without /usr/bin/chromium this suite fails, saying how to install it; RTCAP_SKIP_BROWSER=1
 * skips it instead, visibly.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SweepResult } from '../../src/sweep/record.js';
import { browserSkipped, guardedPage, liveSuite, until } from '../support/dashboard-browser.js';

const skip = browserSkipped(
  'dashboard-sweep-browser.test.ts',
  'the live sweep view is not checked in a browser',
);

const MAX_USERS = 60;
const PROFILE = [
  'name: dashboard-sweep',
  'scenario: broadcast-public',
  'target:',
  `  server: { database: false, config: { max_concurrent_users: ${MAX_USERS} } }`,
  'generator: { max_event_loop_lag_p99_ms: 2000, max_cpu_pct: 100 }',
  'load:',
  '  join_rate: 1000',
  '  drain: 2s',
  '  settle: 300ms',
  '  steps:',
  '    - { connections: 40, send_rate: 5, duration: 2s }',
  // 20, 40, 80 (refused), then 60, 70, 65 while the page watches: six steps of 2 s, two of
  // them stable with a p95 before the refusal.
  'sweep:',
  '  driver: connections',
  '  start: 20',
  '  factor: 2',
  '  max: 200',
  '  stop_after_broken: 1',
  '  resolution: 0.1',
  // What the page shows is the search, not a percentile: steps of a few hundred samples are not
  // lengthened for first-receipt percentiles (with the default 1,000 the first value ran again
  // 4× longer, and every step after it).
  '  min_samples: 0',
  // The built-in server counts a user out as its socket closes: no pause after a refused step.
  '  fresh_pause: 0s',
  'slo: { p95_ms: 5000 }',
  '',
].join('\n');

interface ChartSeries {
  name: string;
  data: Array<{ value: [number, number] }>;
  markLine?: { data: Array<{ xAxis: number }> };
}

describe.skipIf(skip)('the live sweep view in headless Chromium', () => {
  const live = liveSuite('sweep', { 'profile.yaml': PROFILE }, 'profile.yaml');
  const seen = { outside: [] as string[], requested: [] as string[] };

  it('shows the search so far, the knee once found, and at the end the sweep result.json holds', async () => {
    const page = await guardedPage(live.browser, live.rtcap.url, seen);
    // A page that goes away, and a stream cut off mid-frame: neither may stop the run.
    const leaving = await guardedPage(live.browser, live.rtcap.url, seen);
    const cut = request(`${live.rtcap.url}events`, (res) => res.once('data', () => res.destroy()));
    cut.on('error', () => undefined);
    cut.end();

    // Two values searched, the run still going: the view is there and charts both figures.
    await until(
      page,
      'window.rtcapState.sweep && window.rtcapState.sweep.points.length >= 2',
      90_000,
    );
    await leaving.close();
    const chartSeries = async () =>
      (await page.evaluate(
        `echarts.getInstanceByDom(document.getElementById('chart-sweep')).getOption().series`,
      )) as ChartSeries[];
    await until(page, 'window.rtcapState.steps.length >= 2', 60_000);
    expect(await page.locator('#sweep').isVisible()).toBe(true);
    const early = (await page.evaluate(
      '({ end: window.rtcapState.end, steps: window.rtcapState.steps.length })',
    )) as { end: unknown; steps: number };
    expect(early.end).toBeNull();
    const [p95Early] = await chartSeries();
    expect(p95Early.name).toBe('first-receipt p95');
    expect(p95Early.data.length).toBeGreaterThanOrEqual(2);
    expect(await page.locator('#sweep-text').textContent()).toMatch(
      /^driver connections \(search\): \d+ values so far/,
    );

    // The knee, once a step past it has landed, while the search goes on (bisecting).
    await until(
      page,
      'window.rtcapState.sweep.knee && window.rtcapState.sweep.knee.first_unsafe && !window.rtcapState.end',
      120_000,
    );
    const unsafe = (await page.evaluate('window.rtcapState.sweep.knee.first_unsafe')) as {
      value: number;
      step: number;
    };
    expect(unsafe.value).toBeGreaterThan(MAX_USERS * 0.9);
    expect(await page.locator('#sweep-text').textContent()).toContain(
      `first unsafe at ${unsafe.value} (step ${unsafe.step})`,
    );

    // The end: the page holds the sweep record result.json holds, and draws it.
    await page.locator('#end [data-links]').waitFor({ timeout: 180_000 });
    const result = JSON.parse(readFileSync(join(live.out, 'result.json'), 'utf8')) as SweepResult;
    expect(result.status).toBe('completed');
    const sweep = result.sweep!;
    const shown = (await page.evaluate('window.rtcapState.sweep')) as typeof sweep;
    expect(shown).toEqual(sweep);
    const safe = sweep.knee!.safe!;
    expect(safe.value).toBeLessThanOrEqual(MAX_USERS);
    expect(await page.locator('#sweep-text').textContent()).toContain(
      `knee: safe at ${safe.value} (step ${safe.step})`,
    );
    expect(await page.locator('#sweep-text').textContent()).toContain(
      `stopped: ${sweep.stop_reason}`,
    );
    const [p95, cpu] = await chartSeries();
    const byStep = new Map(result.steps.map((s) => [s.index, s]));
    const expected = (f: (s: SweepResult['steps'][number]) => number | null) =>
      sweep.points
        .map((pt) => [pt.value, f(byStep.get(pt.step)!)])
        .filter(([, y]) => y !== null)
        .sort((a, b) => a[0]! - b[0]!);
    expect(p95.data.map((d) => d.value)).toEqual(expected((s) => s.latency_ms.p95));
    expect(cpu.data.map((d) => d.value)).toEqual(expected((s) => s.server.cpu_pct));
    expect(cpu.data.length).toBeGreaterThan(0);
    expect(p95.markLine!.data.map((m) => m.xAxis)).toEqual([
      safe.value,
      sweep.knee!.first_unsafe!.value,
    ]);
    // Every second reached the page that stayed.
    const lines = readFileSync(join(live.out, 'timeseries.ndjson'), 'utf8').trim().split('\n');
    expect(await page.evaluate('window.rtcapState.seconds.length')).toBe(lines.length);
    expect(seen.outside).toEqual([]);
  }, 420_000);
});
