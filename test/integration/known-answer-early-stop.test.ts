/**
 * Known answer of a search whose failing steps end with their ramps (sweep/early-stop): a server
 * that answers joins from one queue at exactly 10 per second, searched along join_rate (start 4,
 * factor 2, resolution 25 %), each step on fresh connections for a 5 s ramp. 4/s and 8/s are
 * answered as offered: stable. 16/s and 12/s are answered at the server's 10/s, under the 90 % of
 * the offered rate a server that keeps up answers at: degraded, and known to be once their ramps
 * are over, so neither runs its warm-up, steady window or drain. 10/s is stable. The knee lands
 * between 10 and 12, where the server's 10/s puts it (a step degrades past 10 ÷ 0.9 = 11.1/s),
 * and the row names the join rate as its limit, as when every step ran whole.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_JWT_SECRET } from '../../src/builtin/config.js';
import { analyzeRun } from '../../src/model/analysis.js';
import { runTestSweep } from '../support/test-sweep.js';
import { profileFrom } from '../support/profiles.js';
import { startTestServer, type TestServer } from '../support/phoenix-test-server.js';
import { tempDir } from '../support/temp-dir.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ joinsPerS: 10 });
});
afterAll(async () => {
  await server?.close();
});

describe('a search whose failing steps are decided by their ramps', () => {
  it('ends them with their ramps and finds the knee the server enforces', async () => {
    const profile = profileFrom({
      name: 'ka-early-stop',
      scenario: 'join-rate',
      target: { url: server.url, auth: { jwt_secret: DEV_JWT_SECRET }, join_timeout: '20s' },
      // No warm-up and a 1 s drain: a step here sends nothing, its figures are its ramp's joins.
      load: {
        warmup: '0s',
        drain: '1s',
        settle: '300ms',
        steps: [{ connections: 20, join_rate: 4, duration: '2s' }],
      },
      // Joins queue at 16/s and 12/s: their p95 is the join rate's finding, not another limit.
      slo: { p95_ms: 200, join_p95_ms: 20_000 },
      sweep: {
        driver: 'join_rate',
        start: 4,
        max: 64,
        factor: 2,
        resolution: 0.25,
        min_samples: 0,
        recovery: { probe: false },
      },
    });
    const { result, sweep, exitCode, verdicts } = await runTestSweep(
      profile,
      tempDir('rtcap-ka-early-stop-'),
      (s) => s.params.join_rate,
    );
    expect(exitCode, verdicts).toBe(0);
    expect(
      sweep.points.map((p) => [p.value, p.phase]),
      verdicts,
    ).toEqual([
      [4, 'grow'],
      [8, 'grow'],
      [16, 'grow'],
      [12, 'bisect'],
      [10, 'bisect'],
    ]);
    expect(
      result.steps.map((s) => s.verdict),
      verdicts,
    ).toEqual(['stable', 'stable', 'degraded', 'degraded', 'stable']);
    expect(sweep.knee).toMatchObject({
      safe: { step: 5, value: 10 },
      first_unsafe: { step: 4, value: 12 },
    });
    for (const s of result.steps) {
      if (s.verdict === 'stable') {
        // Ran whole: its 2 s steady window.
        expect(s.complete).toBe(true);
        expect(s.window.steady_end - s.window.steady_start).toBe(2000);
        continue;
      }
      expect(s.complete).toBe(false);
      expect(s.cut_short?.by).toMatch(
        /^stopped early after its ramp: degraded whatever the rest measures: joins [\d.]+\/s < 90% of the 1[26]\/s offered: the server fell behind the join schedule/,
      );
      // Its steady window: 0 s of the 2 s planned; the server's 10/s measured over the whole ramp.
      expect(s.window.steady_end - s.window.steady_start).toBe(0);
      expect(s.rates.joins_per_s).toBeGreaterThan(9.5);
      expect(s.rates.joins_per_s).toBeLessThan(10.5);
    }
    const row = analyzeRun(result).capacity.find((r) => r.id === 'join_rate')!;
    expect(row.limit).toMatchObject({ kind: 'join-slo' });
  }, 180_000);
});
