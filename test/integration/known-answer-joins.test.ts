/**
 * Known answers for joins: against a server that answers joins from one queue
 * at exactly 10 per second, a step offering 5 joins/s is stable and measures 5/s; a step
 * offering 20/s (twice its capacity) is not stable and measures the server's 10/s.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { runBenchmark } from '../../src/run/runner.js';
import { startTestServer, type TestServer } from '../support/phoenix-test-server.js';
import { profileFrom } from '../support/profiles.js';
import { tempDir } from '../support/temp-dir.js';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const within5Pct = (measured: number | null, truth: number) => {
  expect(measured).not.toBeNull();
  expect(Math.abs(measured! - truth) / truth).toBeLessThanOrEqual(0.05);
};

describe('known-answer server: joins served at 10/s', () => {
  it('measures the join rate the server answered: 5/s offered → 5/s and stable; 20/s offered → 10/s and not stable', async () => {
    server = await startTestServer({ joinsPerS: 10 });
    const profile = profileFrom({
      name: 'ka-joins',
      scenario: 'broadcast-public',
      target: { url: server.url, vsn: '2.0.0', join_timeout: '20s' },
      load: {
        steps: [
          // 30 joins at 5/s: a 6 s ramp the server keeps up with (each answered 100 ms after it is
          // due).
          { connections: 30, join_rate: 5, duration: '1s' },
          // 60 more at 20/s: due within 3 s, answered over 6 s.
          { connections: 90, join_rate: 20, duration: '1s' },
        ],
        drain: '1s',
      },
    });
    const { result } = await runBenchmark({
      profile,
      profilePath: null,
      redactedProfile: {},
      outDir: tempDir('rtcap-ka-joins-'),
      log: () => undefined,
    });
    const [under, over] = result.steps;
    expect(server.stats.joins).toBe(90);

    expect(under.connections.first_joins).toBe(30);
    within5Pct(under.rates.joins_per_s, 5);
    expect(under.verdict).toBe('stable');
    // From the scheduled join time: the server's 100 ms service time, give or take loopback.
    expect(under.connections.join_latency_ms.p50!).toBeGreaterThanOrEqual(100);
    expect(under.connections.join_latency_ms.p50!).toBeLessThan(400);

    expect(over.connections.first_joins).toBe(60);
    within5Pct(over.rates.joins_per_s, 10);
    expect(over.verdict).not.toBe('stable');
    expect(over.verdict_reasons.join('\n')).toContain('the server fell behind the join schedule');
    // The backlog shows in the join latency from the scheduled time: the last joins waited ~3 s.
    expect(over.connections.join_latency_ms.max!).toBeGreaterThan(2500);
    expect(over.generator.offered_ratio).toBe(1);
    expect(over.rates.rejoins_per_s).toBeNull();
  }, 60_000);
});
