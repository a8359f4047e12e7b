/**
 * Known answer: a generator process whose event loop is held longer than the server's idle
 * timeout (4 s at a time, against the built-in server's 3 s, heartbeats every 1 s) cannot send
 * its heartbeats, and the server closes its connections as idle. Those closes are the
 * generator's doing: every one is named "heartbeat late", counted as a generator-side error, and
 * the step reads generator-bound; none is quoted as the server's rejection.
 *
 * The step is three holds long: a held process reads the server's close frame when it next
 * wakes and the end of the socket (what counts the loss) when it wakes after that; in a shorter
 * step the coordinator's collection came first and the losses went uncounted in the step.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_JWT_SECRET } from '../../src/builtin/config.js';
import { LATE_HEARTBEAT } from '../../src/generator/late-heartbeat.js';
import { serverRejectionOf } from '../../src/model/step-limit.js';
import { runBenchmark } from '../../src/run/runner.js';
import type { RunningServer } from '../../src/server/server.js';
import { serve } from '../server/helpers.js';
import { profileFrom } from '../support/profiles.js';
import { tempDir } from '../support/temp-dir.js';

const STALL = fileURLToPath(new URL('../support/loop-stall.mjs', import.meta.url));

let server: RunningServer;
beforeAll(async () => {
  server = await serve({ timings: { idleTimeoutMs: 3_000 } });
});
afterAll(async () => {
  await server.close();
});

describe('a generator held past the server idle timeout', () => {
  it("has its connections closed, and the closes are named the generator's", async () => {
    process.env.RTCAP_WORKER_EXEC_ARGV = `--import ${STALL}`;
    process.env.RTCAP_TEST_STALL_MS = '4000';
    try {
      const profile = profileFrom({
        name: 'late-heartbeat',
        scenario: 'broadcast-public',
        target: {
          url: server.url,
          vsn: '2.0.0',
          heartbeat_interval: '1s',
          auth: { jwt_secret: DEV_JWT_SECRET },
        },
        load: {
          workers: 1,
          join_rate: 4,
          drain: '1s',
          steps: [{ connections: 4, send_rate: 0, duration: '12s' }],
        },
      });
      const { result } = await runBenchmark({
        profile,
        profilePath: null,
        redactedProfile: {},
        outDir: tempDir('rtcap-late-heartbeat-'),
        log: () => undefined,
      });
      const step = result.steps[0];
      expect(step.connections.disconnected).toBeGreaterThan(0);
      const reasons = Object.keys(step.errors);
      expect(reasons.length).toBeGreaterThan(0);
      for (const r of reasons)
        expect(r).toBe(
          `${LATE_HEARTBEAT} (due every 1 s; this generator's event loop held it): closed by server: 1000`,
        );
      const closes = Object.values(step.errors).reduce((a, b) => a + b, 0);
      expect(step.error_classes?.generator).toBe(closes);
      expect(step.error_classes?.server ?? 0).toBe(0);
      expect(step.verdict).toBe('generator-bound');
      expect(serverRejectionOf(step)).toBeNull();
    } finally {
      delete process.env.RTCAP_WORKER_EXEC_ARGV;
      delete process.env.RTCAP_TEST_STALL_MS;
    }
  }, 120_000);
});
