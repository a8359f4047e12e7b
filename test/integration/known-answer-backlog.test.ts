/**
 * Known answer of a search against a server whose backlog outlives the step that made it: one
 * topic of M = 50 receivers, its deliveries queued per topic and served at R = 2,000/s (the true
 * capacity: R / M = 40 messages/s), and once more than 400 deliveries wait the topic is
 * overloaded and serves at half that rate until its queue is empty. It drains slower than it
 * filled, keeps its backlog across steps, and a probe on a topic of its own would see nothing
 * of it (its queue is another).
 *
 * The search over send_rate (start 24, factor 2, resolution 10 %): 24 stable, 48 (1.2 R) past
 * capacity, so growth stops there (never 96); the bisection's first step, 36, starts while the
 * topic still works off 48's backlog (the probe's wait, max_wait 2 s, is shorter than the
 * drain), so it is inconclusive and run again; the knee must bracket R / M. Margins: every
 * stable step at most 1.05 × 40 (5 % over capacity for 3 s queues 300 deliveries, 150 ms over a
 * 100 ms SLO; 1.05 itself may pass, its p95 near the SLO), every step that was not stable,
 * measured after recovery, at least 0.9 × 40 (below capacity the topic's queue stays under 400:
 * 51 deliveries a push, 25 ms each at R). The bisection stops once the bracket is within the 10 %
 * resolution, so its top is at most 1.05 × 40 / 0.9 ≈ 46.7 and its bottom at least
 * 0.9 × 40 × 0.9 = 32.4; the values the search can reach (24, 48, 36, 42, 39, 45) put it in
 * [36, 42], [39, 42] or [42, 45].
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeRun } from '../../src/model/analysis.js';
import { startTestServerProcess, type TestServerProcess } from '../support/test-server-process.js';
import { runTestSweep } from '../support/test-sweep.js';
import { profileFrom, TEST_GENERATOR_LIMITS } from '../support/profiles.js';
import { tempDir } from '../support/temp-dir.js';

const R = 2000;
const M = 50;
const CAPACITY = R / M;
let server: TestServerProcess;
beforeAll(async () => {
  server = await startTestServerProcess({
    topicQueue: { deliveriesPerS: R, overloadAfter: 400, overloadedShare: 0.5, burstMs: 50 },
  });
});
afterAll(async () => {
  await server?.close();
});

/** 3 s steps of M receivers and one sender; the probe's wait (2 s) is shorter than a drain. */
const LOAD = { join_rate: 1000, warmup: '500ms', drain: '1s', settle: '200ms' };
const STEP = { connections: M + 1, send_rate: 24, duration: '3s' };
const RECOVERY = { messages: 3, max_wait: '2s', reruns: 3 };
const SEARCH = { driver: 'send_rate', start: 24, max: 200, factor: 2, resolution: 0.1 };

const searchProfile = () =>
  profileFrom({
    ...{ name: 'ka-search-backlog', scenario: 'broadcast-public', target: { url: server.url } },
    ...{ load: { ...LOAD, steps: [STEP] }, slo: { p95_ms: 100 }, generator: TEST_GENERATOR_LIMITS },
    sweep: { ...SEARCH, min_samples: 0, recovery: RECOVERY },
  });

describe('a search against a server whose topic drains its backlog slower than it filled it', () => {
  it('stops growing at the first step past capacity, re-runs a step measured during the backlog, and brackets R / M', async () => {
    const dir = tempDir('rtcap-ka-backlog-');
    const { result, sweep, verdicts } = await runTestSweep(
      searchProfile(),
      dir,
      (s) => s.params.send_rate,
    );
    expect(result.abort_reason ?? null, verdicts).toBeNull();
    const runs = result.steps.map((s) => ({
      rate: s.params.send_rate,
      verdict: s.verdict,
      phase: sweep.points.find((p) => p.step === s.index)!.phase,
      inconclusive: s.search?.inconclusive === true,
    }));
    // Growth: 24 stable, 48 past capacity; never 96.
    expect(
      runs.slice(0, 2).map((r) => [r.rate, r.phase, r.verdict]),
      verdicts,
    ).toEqual([
      [24, 'grow', 'stable'],
      [48, 'grow', expect.stringMatching(/^(degraded|broken)$/)],
    ]);
    expect(Math.max(...runs.map((r) => r.rate)), verdicts).toBe(48);
    // 36 ran while 48's backlog drained: inconclusive, with the probe's numbers, and run again.
    expect(runs[2], verdicts).toMatchObject({ rate: 36, phase: 'bisect', inconclusive: true });
    const mark = result.steps[2].search!;
    expect(mark.recovered).toBe(false);
    expect(mark.recovery).toMatchObject({ baseline_p50_ms: expect.any(Number) });
    expect(mark.recovery!.tolerance_ms).toBeGreaterThan(mark.recovery!.baseline_p50_ms!);
    expect(mark.recovery!.waited_ms).toBeGreaterThanOrEqual(1_000);
    expect(sweep.points[2].recovery!.note).toMatch(
      /still arriving|over the tolerance|round trips lost/,
    );
    expect(runs[3], verdicts).toMatchObject({ rate: 36, phase: 'retry' });
    // The probe before step 2 (after the stable 24, nothing arriving) is the baseline, taken on
    // the bench topic beside its members.
    expect(sweep.points[1].recovery).toMatchObject({ path: 'broadcast', recovered: true });
    expect(sweep.points[1].recovery!.probes.at(-1)).toMatchObject({
      sent: 3,
      received: 3,
      still_arriving: 0,
    });

    // Evidence: steps measured after a confirmed recovery only.
    const evidence = result.steps.filter((s) => s.search?.recovered !== false);
    for (const s of evidence) {
      const rate = s.params.send_rate;
      if (s.verdict === 'stable') expect(rate, verdicts).toBeLessThanOrEqual(CAPACITY * 1.05);
      else expect(rate, verdicts).toBeGreaterThanOrEqual(CAPACITY * 0.9);
    }
    expect(sweep.stop_kind, sweep.stop_reason ?? verdicts).toBe('knee');
    const knee = sweep.knee!;
    expect(knee.safe!.value, verdicts).toBeGreaterThanOrEqual(CAPACITY * 0.9 * 0.9);
    expect(knee.first_unsafe!.value, verdicts).toBeLessThanOrEqual((CAPACITY * 1.05) / 0.9);
    expect(knee.safe!.value, verdicts).toBeLessThan(knee.first_unsafe!.value);
    expect([knee.safe!.value, knee.first_unsafe!.value], verdicts).toSatisfy(
      ([lo, hi]: number[]) => lo <= CAPACITY * 1.05 && hi >= CAPACITY * 0.9,
    );
    // The row reads the knee's stable step, never an inconclusive one.
    const row = analyzeRun(result).capacity.find((r) => r.id === 'public_deliveries')!;
    expect(row.value!, verdicts).toBeGreaterThanOrEqual(R * 0.9 * 0.9);
    expect(row.value!, verdicts).toBeLessThanOrEqual(R * 1.05);
  }, 120_000);
});
