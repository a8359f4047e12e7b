/**
 * Known answer of a search: a server that carries exactly R = 2,000 deliveries/s (a serial
 * writer: one queue, each delivery written 1/R after the one before; above R its queue and
 * latency grow) and 4 receivers of one sender. The search over send_rate must land within its
 * 5 % resolution below R, name latency or delivery as what stopped it, and read no step at or
 * below R as broken: the steps right after an overloaded one start only once the recovery
 * probe saw the queue empty again (without the probe the backlog of the step before — seconds
 * of it, past the 1 s drain — would make them read broken).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runArtifactHooks } from '../../src/cli/render.js';
import { analyzeRun } from '../../src/model/analysis.js';
import { STEP_METRICS } from '../../src/model/metrics.js';
import { runSweep } from '../../src/run/sweep.js';
import { startTestServer, type TestServer } from '../support/phoenix-test-server.js';
import { profileFrom, TEST_GENERATOR_LIMITS } from '../support/profiles.js';

const R = 2000;
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ deliveriesPerS: R });
});
afterAll(async () => {
  await server.close();
});

function searchProfile() {
  return profileFrom({
    name: 'ka-search-serial',
    scenario: 'broadcast-public',
    target: { url: server.url },
    load: { join_rate: 1000, warmup: '500ms', drain: '1s', settle: '300ms', steps: [{ connections: 5, send_rate: 90, duration: '15s' }] },
    // 3.6 % above R (the least overload this search runs) the queue grows by 72 deliveries a
    // second: p95 ≈ 500 ms after 15 s, over 300 ms, which leaves room for a loaded machine.
    slo: { p95_ms: 300 },
    generator: TEST_GENERATOR_LIMITS,
    sweep: { driver: 'send_rate', start: 90, max: 2000, factor: 2, stop_after_broken: 1, resolution: 0.05, recovery: { max_wait: '30s' } },
  });
}

describe('a search against a server that carries exactly R deliveries/s', () => {
  it('lands within the resolution below R, names latency or delivery, and reads no step at or below R broken', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rtcap-ka-search-'));
    const { result, sweep, exitCode } = await runSweep({ profile: searchProfile(), profilePath: null, redactedProfile: {}, outDir: dir, log: (l) => process.env.SWEEP_DEBUG && console.error(l), ...runArtifactHooks() });
    expect(exitCode, result.abort_reason ?? '').toBe(0);
    expect(sweep.stop_kind).toBe('knee');
    const offered = (s: (typeof result.steps)[number]) => STEP_METRICS.expected_per_s(s)!;
    // The path the planner takes when every step at or below R is stable and every one above it is not.
    expect(sweep.points.map((p) => p.value)).toEqual([90, 180, 360, 720, 540, 450, 495, 518]);
    for (const s of result.steps) {
      if (offered(s) <= R) expect([s.index, s.verdict, s.search?.recovered]).toEqual([s.index, 'stable', expect.not.stringMatching(/^false$/)]);
      else expect([s.index, s.verdict]).not.toEqual([s.index, 'stable']);
    }
    // The step after the overloaded ones began only once the probe saw the backlog gone.
    const afterOverload = sweep.points.find((p) => p.value === 450)!;
    expect(afterOverload.recovery?.recovered).toBe(true);
    expect(afterOverload.recovery!.probes.length).toBeGreaterThan(1);
    expect(afterOverload.recovery!.wait_ms).toBeGreaterThan(500);

    const row = analyzeRun(result).capacity.find((r) => r.id === 'public_deliveries')!;
    expect(row.bound).toBe('upper');
    expect(row.value!).toBeGreaterThanOrEqual(R * 0.95);
    expect(row.value!).toBeLessThanOrEqual(R);
    expect(['latency-slo', 'delivery']).toContain(row.limit.kind);
  }, 420_000);
});
