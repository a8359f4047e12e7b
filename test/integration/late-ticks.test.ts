/**
 * A generator process whose event loop is held 3 s at a time (test/support/loop-stall.mjs, as a
 * process starved of CPU on a loaded machine is held): its once-a-second tick comes ~3 s late, so
 * each of its lines covers the seconds since its last. Known answers: timeseries.ndjson still has
 * a point for every second of the run, the seconds a late line covered say so (`spread_lines`), the
 * run's deliveries and sends sum over the points to the process's own totals, and the stall shows
 * as event-loop lag of seconds.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_JWT_SECRET } from '../../src/builtin/config.js';
import { buildSummary } from '../../src/report/summary.js';
import type { TimeseriesPoint } from '../../src/result/timeseries-point.js';
import { runBenchmark } from '../../src/run/runner.js';
import type { RunningServer } from '../../src/server/server.js';
import { serve } from '../server/helpers.js';
import { profileFrom } from '../support/profiles.js';
import { tempDir } from '../support/temp-dir.js';

const STALL = fileURLToPath(new URL('../support/loop-stall.mjs', import.meta.url));

let server: RunningServer;
beforeAll(async () => {
  server = await serve();
});
afterAll(async () => {
  delete process.env.RTCAP_WORKER_EXEC_ARGV;
  await server.close();
});

describe('a generator process whose ticks come seconds late', () => {
  it('leaves no second without its line: each late line is spread over the seconds it covers', async () => {
    const outDir = tempDir('rtcap-late-ticks-');
    const profile = profileFrom({
      name: 'late-ticks',
      scenario: 'broadcast-public',
      target: { url: server.url, vsn: '2.0.0', auth: { jwt_secret: DEV_JWT_SECRET } },
      load: {
        workers: 1,
        join_rate: 50,
        drain: '1s',
        steps: [{ connections: 10, send_rate: 20, duration: '12s' }],
      },
    });
    process.env.RTCAP_WORKER_EXEC_ARGV = `--import ${STALL}`;
    let result: Awaited<ReturnType<typeof runBenchmark>>['result'];
    try {
      ({ result } = await runBenchmark({
        profile,
        profilePath: null,
        redactedProfile: {},
        outDir,
        log: () => undefined,
      }));
    } finally {
      delete process.env.RTCAP_WORKER_EXEC_ARGV;
    }
    const points = readFileSync(join(outDir, 'timeseries.ndjson'), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as TimeseriesPoint)
      .filter((p) => typeof p.t === 'number');
    const ts = points.map((p) => p.t);
    const step = result.steps[0];
    // A point for every second from the first to the last: none skipped.
    expect(ts).toEqual(ts.map((_, i) => ts[0] + i));
    const spread = points.filter((p) => (p.spread_lines ?? 0) >= 1);
    expect(spread.length).toBeGreaterThanOrEqual(3);
    // Every second a late line covered shows the stall as lag: the loop was held for seconds.
    for (const p of spread) expect(p.generator_lag_p99_ms).toBeGreaterThanOrEqual(1_000);
    // Spread evenly, the counts are exact in total: every message sent and received, once.
    expect(step.messages.received).toBe(step.messages.expected);
    expect(points.reduce((a, p) => a + p.delivered_per_s, 0)).toBe(step.messages.received);
    expect(points.reduce((a, p) => a + p.sent_per_s, 0)).toBe(step.messages.sent);
    expect(step.verdict).toBe('generator-bound');
    // The step says its steady window's rates rest on spread seconds, and its notes name it.
    expect(step.generator.spread_seconds).toBeGreaterThanOrEqual(1);
    const notes = buildSummary(result).notes.join('\n');
    expect(notes).toContain("a generator process's per-second line came more than a second late");
  }, 120_000);
});
