/**
 * Issue 8 item 9: a step where nothing was measured — no delivery timed, no send
 * acknowledged, no join answered — is inconclusive, not stable, and no capacity uses it.
 * The second step keeps the first step's connections (no joins) and sends nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findKnee } from '../../src/model/knee.js';
import { runBenchmark } from '../../src/run/runner.js';
import { startTestServer, type TestServer } from '../support/phoenix-test-server.js';
import { profileFrom } from '../support/profiles.js';
import { tempDir } from '../support/temp-dir.js';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe('a step with nothing measured', () => {
  it('is inconclusive, and the knee ignores it', async () => {
    server = await startTestServer();
    const profile = profileFrom({
      name: 'inconclusive',
      scenario: 'broadcast-public',
      target: { url: server.url },
      load: {
        join_rate: 200,
        drain: '1s',
        settle: '200ms',
        steps: [
          { connections: 4, send_rate: 5, duration: '1s' },
          { connections: 4, send_rate: 0, duration: '1s' },
        ],
      },
    });
    const { result, exitCode } = await runBenchmark({
      profile,
      profilePath: null,
      redactedProfile: {},
      outDir: tempDir('rtcap-inconclusive-'),
      log: () => undefined,
    });
    expect(exitCode, result.abort_reason ?? '').toBe(0);
    const [a, b] = result.steps;
    expect(a.verdict).toBe('stable');
    expect(a.messages.received).toBe(5 * 3);
    expect(b.extra.joined_in_step).toBe(0);
    expect(b.messages.sent).toBe(0);
    expect(b.messages.received).toBe(0);
    expect(b.verdict).toBe('inconclusive');
    expect(b.verdict_reasons).toEqual([
      'nothing measured: no delivery latency, no acknowledged send, no join',
    ]);
    const knee = findKnee(result.steps, 'send_rate');
    expect(knee.safe).toEqual({ step: 1, value: 5, verdict: 'stable' });
    expect(knee.first_unsafe).toBeNull();
  });
});
