/**
 * Steps on the same connections: growing ramps only the new ones, shrinking closes the extra
 * ones before the next step is measured, and expected follows the members of each step.
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

describe('multi-step runs', () => {
  it('grows and shrinks the connection set between steps', async () => {
    server = await startTestServer();
    const profile = profileFrom({
      name: 'steps',
      scenario: 'broadcast-public',
      target: { url: server.url },
      load: {
        join_rate: 200,
        drain: '2s',
        steps: [
          { connections: 6, send_rate: 5, duration: '1s' },
          { connections: 12, send_rate: 5, duration: '1s' },
          { connections: 4, send_rate: 5, duration: '1s' },
        ],
      },
    });
    const { result, exitCode } = await runBenchmark({
      profile,
      profilePath: null,
      redactedProfile: {},
      outDir: tempDir('rtcap-steps-'),
      log: () => undefined,
    });
    expect(exitCode, result.abort_reason ?? '').toBe(0);
    const [a, b, c] = result.steps;
    expect(a.extra.joined_in_step).toBe(6);
    expect(b.extra.joined_in_step).toBe(6); // only the new ones
    expect(c.extra.joined_in_step).toBe(0);
    expect([a, b, c].map((s) => s.connections.joined)).toEqual([6, 12, 4]);
    expect([a, b, c].map((s) => s.messages.expected)).toEqual([5 * 5, 5 * 11, 5 * 3]);
    for (const s of [a, b, c]) {
      expect(s.messages.received).toBe(s.messages.expected);
      expect(s.connections.disconnected).toBe(0); // closed by us, not lost
      expect(s.messages.unexpected).toBe(0);
    }
    expect(c.connections.open_at_end).toBe(4);
  });
});
