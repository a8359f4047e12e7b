/**
 * Issue 8 item 6: a rate counts deliveries by receive time over the steady window; receipts
 * held past the window are deliveries, not throughput, and how long after the window they
 * came is the step's backlog. The server delays every delivery by 1.5 s.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runBenchmark } from '../../src/run/runner.js';
import type { TimeseriesPoint } from '../../src/result/timeseries-point.js';
import { startTestServer, type TestServer } from '../support/phoenix-test-server.js';
import { profileFrom } from '../support/profiles.js';
import { tempDir } from '../support/temp-dir.js';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe('deliveries held past the window', () => {
  it('count in the rate only inside the window; the drain is reported as backlog', async () => {
    const delayMs = 1500;
    server = await startTestServer({ delayMs });
    const profile = profileFrom({
      name: 'drain',
      scenario: 'broadcast-public',
      target: { url: server.url },
      slo: { p95_ms: 5000 },
      load: {
        join_rate: 200,
        drain: '4s',
        settle: '300ms',
        steps: [{ connections: 3, send_rate: 10, duration: '3s' }],
      },
    });
    const dir = tempDir('rtcap-drain-');
    const { result, exitCode } = await runBenchmark({
      profile,
      profilePath: null,
      redactedProfile: {},
      outDir: dir,
      log: () => undefined,
    });
    expect(exitCode, result.abort_reason ?? '').toBe(0);
    const s = result.steps[0];
    // Every message reached both other members: 30 sends × 2.
    expect(s.messages).toMatchObject({ sent: 30, expected: 60, received: 60, lost: 0 });
    // The last receipt came about the delay after the window closed.
    expect(s.drain!.backlog_ms!).toBeGreaterThanOrEqual(delayMs - 300);
    expect(s.drain!.backlog_ms!).toBeLessThan(delayMs + 1500);
    // The rate is the mean of the steady window's whole seconds, counted by receive time:
    // exactly what timeseries.ndjson holds for those seconds, never the drain's receipts.
    const points = readFileSync(join(dir, 'timeseries.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as TimeseriesPoint);
    const steady = points.filter(
      (p) => p.t * 1000 >= s.window.steady_start && (p.t + 1) * 1000 <= s.window.steady_end,
    );
    expect(steady.length).toBeGreaterThanOrEqual(2);
    const inWindow = steady.reduce((a, p) => a + p.delivered_per_s, 0);
    expect(s.rates.delivered_per_s).toBe(Math.round((inWindow / steady.length) * 10) / 10);
    const after = points
      .filter((p) => p.t * 1000 >= s.window.steady_end)
      .reduce((a, p) => a + p.delivered_per_s, 0);
    expect(s.drain!.receipts_after_window).toBe(after);
    expect(after).toBeGreaterThan(0);
    expect(inWindow + after).toBeLessThanOrEqual(60);
    // Sends by send time over the window: 30 in 3 s.
    expect(s.rates.sent_per_s).toBe(10);
  });
});
