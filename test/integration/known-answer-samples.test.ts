/**
 * Known answer for percentiles on too few samples: against the test server, a step of 8
 * messages has first-receipt percentiles on 8 samples — every one of them marked in
 * result.json and the terminal table (p95 = p99 = max of 8 goes unremarked no more) — and a
 * step of 1,200 messages has p50, p95 and p99 on enough samples (≥ 10 beyond each), only
 * p99.9 marked.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { renderTerminalSummary } from '../../src/report/terminal.js';
import { runBenchmark } from '../../src/run/runner.js';
import { startTestServer, type TestServer } from '../support/phoenix-test-server.js';
import { profileFrom } from '../support/profiles.js';
import { tempDir } from '../support/temp-dir.js';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function runMessages(sendRate: number, duration: string) {
  server = await startTestServer({});
  const profile = profileFrom({
    name: `ka-samples-${sendRate}`,
    scenario: 'broadcast-public',
    target: { url: server.url, vsn: '2.0.0' },
    load: {
      join_rate: 200,
      steps: [{ connections: 10, send_rate: sendRate, duration }],
      drain: '2s',
    },
    slo: { p95_ms: 2000 },
  });
  const outDir = tempDir('rtcap-ka-samples-');
  return runBenchmark({
    profile,
    profilePath: null,
    redactedProfile: {},
    outDir,
    log: () => undefined,
  });
}

describe('percentiles on too few samples', () => {
  it('8 messages: p50, p95, p99 and p99.9 all rest on 8 samples and are marked', async () => {
    const { result, exitCode } = await runMessages(4, '2s');
    expect(exitCode, result.abort_reason ?? '').toBe(0);
    const s = result.steps[0];
    expect(s.messages.sent).toBe(8);
    expect(s.delivery_rate).toBe(1);
    expect(s.latency_ms.count).toBe(8);
    expect(s.latency_ms.few_samples).toEqual(['p50', 'p95', 'p99', 'p999']);
    const text = renderTerminalSummary(result);
    const row = text.split('\n').find((l) => /^\s+1\s/.test(l))!;
    expect(row.match(/ms †/g)).toHaveLength(3);
    expect(text).toContain(
      '† marks a percentile resting on too few samples: a pN needs at least 10 samples beyond it (p50 20, p95 200, p99 1,000, p99.9 10,000)',
    );
    expect(text).toContain('First-receipt latency of step 1: 8 messages (p50, p95, p99).');
  });

  it('1,200 messages: p50, p95 and p99 unmarked, only p99.9 too few', async () => {
    const { result, exitCode } = await runMessages(400, '3s');
    expect(exitCode, result.abort_reason ?? '').toBe(0);
    const s = result.steps[0];
    expect(s.messages.sent).toBe(1200);
    expect(s.latency_ms.count).toBe(1200);
    expect(s.latency_ms.few_samples).toEqual(['p999']);
    const text = renderTerminalSummary(result);
    expect(text).not.toContain('†');
  });
});
