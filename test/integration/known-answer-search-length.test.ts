/**
 * Known answer of how long a search's steps run for sweep.min_samples, against the test server
 * (every broadcast delivered at once): a send-rate search has exactly rate × duration
 * first-receipt samples a step, so which step is run again longer, and how long each step after
 * it runs, follow from the rules alone (sweep/length, sweep/settled):
 *
 * - start 10/s, 2 s steps, min_samples 50: 20 samples, short and open, run again 3× (6 s, 60
 *   samples); 20/s is expected to give 40 samples a 2 s step, so it runs 1.5× (3 s, 60); 40/s
 *   gives 80 at 1×, so it runs 2 s (the old rule ran every step after the first 3×);
 * - start 24/s: 48 samples of 50, every one far under the SLO — at least ⌈0.95 × 50⌉ = 48 at or
 *   under it, so the 2 missing samples cannot put the p95 over: not run again, and the step
 *   says why.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/phoenix-test-server.js';
import { profileFrom, TEST_GENERATOR_LIMITS } from '../support/profiles.js';
import { runTestSweep } from '../support/test-sweep.js';
import { tempDir } from '../support/temp-dir.js';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function search(start: number, max: number) {
  server = await startTestServer({});
  const profile = profileFrom({
    name: `ka-search-length-${start}`,
    scenario: 'broadcast-public',
    target: { url: server.url, vsn: '2.0.0' },
    load: {
      join_rate: 200,
      warmup: '0s',
      drain: '1s',
      settle: '300ms',
      steps: [{ connections: 10, send_rate: start, duration: '2s' }],
    },
    slo: { p95_ms: 2000 },
    generator: TEST_GENERATOR_LIMITS,
    sweep: { driver: 'send_rate', start, max, factor: 2, min_samples: 50 },
  });
  return runTestSweep(profile, tempDir('rtcap-ka-length-'), (s) => s.params.send_rate);
}

describe('search step lengths for min_samples', () => {
  it('runs the short first step again 3×, then each step as long as its samples need: 1.5×, then 1×', async () => {
    const { result, sweep, exitCode, verdicts } = await search(10, 40);
    expect(exitCode, result.abort_reason ?? verdicts).toBe(0);
    expect(
      result.steps.map((s) => s.verdict),
      verdicts,
    ).toEqual(['stable', 'stable', 'stable', 'stable']);
    expect(sweep.points.map((p) => [p.value, p.phase, p.scale ?? 1])).toEqual([
      [10, 'grow', 1],
      [10, 'lengthen', 3],
      [20, 'grow', 1.5],
      [40, 'grow', 1],
    ]);
    expect(result.steps.map((s) => s.params.duration_s)).toEqual([2, 6, 3, 2]);
    expect(result.steps.map((s) => s.latency_ms.count)).toEqual([20, 60, 60, 80]);
    expect(result.steps[0].search?.superseded_by).toBe(2);
    expect(sweep.stop_kind).toBe('range-end');
  }, 120_000);

  it('does not run a short step again when the samples it lacks cannot change its verdict', async () => {
    const { result, sweep, exitCode, verdicts } = await search(24, 48);
    expect(exitCode, result.abort_reason ?? verdicts).toBe(0);
    expect(
      sweep.points.map((p) => [p.value, p.phase, p.scale ?? 1]),
      verdicts,
    ).toEqual([
      [24, 'grow', 1],
      [48, 'grow', 1],
    ]);
    expect(result.steps[0].latency_ms.count).toBe(48);
    const settled =
      'stable whatever the 2 missing samples: 48 of 48 at or under the SLO 2000 ms, at least 48 of 50 needed';
    expect(sweep.points[0].samples?.settled).toBe(settled);
    expect(sweep.points[0].samples?.action).toBe(`not run again longer: ${settled}`);
    expect(result.steps[0].search?.notes).toContain(
      `latency p95 on 48 samples, below sweep.min_samples 50, not run again longer: ${settled}`,
    );
    expect(result.steps[0].search?.superseded_by).toBeUndefined();
  }, 120_000);
});
