/**
 * write-only end to end (seed 002 §7 row 6): senders alone on their own topics, acked sends,
 * nothing delivered. Against the built-in server rtcap starts, and against a server given by
 * URL whose tenant refuses payloads over 1 KB, so where sends stop is known.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { WriteOnlyExtra } from '../../src/result/extra.js';
import { runBenchmark } from '../../src/run/runner.js';
import { DEV_JWT_SECRET } from '../../src/builtin/config.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { profileFrom } from '../support/profiles.js';
import { serverCounters } from '../support/server-metrics.js';
import { tempDir } from '../support/temp-dir.js';

const quiet = () => undefined;
const out = () => tempDir('rtcap-wo-');

let srv: RunningServer | null = null;
afterEach(async () => {
  await srv?.close();
  srv = null;
});

describe('write-only scenario', () => {
  it('has every send taken and acknowledged, and nothing expected or delivered', async () => {
    const profile = profileFrom({
      name: 'wo-builtin',
      scenario: 'write-only',
      target: { server: { database: false } },
      load: {
        join_rate: 100,
        ack: true,
        drain: '2s',
        steps: [
          { connections: 5, send_rate: 50, duration: '2s' },
          { connections: 8, send_rate: 200, duration: '2s' },
        ],
      },
    });
    const { result, exitCode } = await runBenchmark({
      profile,
      profilePath: null,
      redactedProfile: {},
      outDir: out(),
      log: quiet,
    });
    expect(exitCode, result.abort_reason ?? '').toBe(0);
    for (const [i, s] of result.steps.entries()) {
      const n = [100, 400][i];
      expect(s.messages).toMatchObject({
        scheduled: n,
        sent: n,
        send_failed: 0,
        acked: n,
        unacked: 0,
        ack_errors: 0,
        expected: 0,
        received: 0,
        lost: 0,
        duplicates: 0,
        unexpected: 0,
      });
      expect(s.delivery_rate).toBeNull();
      const e = s.extra as Partial<WriteOnlyExtra>;
      // Acks counted per whole steady second by ack time: a second of a n/2-per-second
      // schedule holds n/2 sends, one more or less at its edges.
      expect(Math.abs(e.acked_per_s! - n / 2)).toBeLessThanOrEqual(1);
      expect(s.rates.acked_per_s).toBe(e.acked_per_s);
      // Everything taken: no stop, unless this (shared) machine made acks slower than the SLO.
      expect(e.stop_reason === null || e.stop_reason?.startsWith('acks late')).toBe(true);
    }
    expect(result.steps[1].extra).toMatchObject({ senders: 8 });
  });

  it('says where sends stop against a server given by URL, and its counters agree', async () => {
    srv = await startServer({
      port: 0,
      database: false,
      log: quiet,
      config: { max_payload_size_in_kb: 1 },
    });
    const profile = profileFrom({
      name: 'wo-url',
      scenario: 'write-only',
      target: { url: srv.url, vsn: '2.0.0', auth: { jwt_secret: DEV_JWT_SECRET } },
      load: {
        join_rate: 100,
        ack: true,
        drain: '2s',
        steps: [
          { connections: 4, send_rate: 20, payload_bytes: 256, duration: '2s' },
          // Over the tenant's 1 KB: every send refused (payload_size_exceeded).
          { connections: 4, send_rate: 20, payload_bytes: 4096, duration: '2s' },
        ],
      },
    });
    const { result, exitCode } = await runBenchmark({
      profile,
      profilePath: null,
      redactedProfile: {},
      outDir: out(),
      log: quiet,
    });
    expect(exitCode, result.abort_reason ?? '').toBe(0);
    const [ok, refused] = result.steps;
    expect(ok.messages).toMatchObject({ sent: 40, acked: 40, received: 0 });
    expect(refused.messages).toMatchObject({ sent: 40, acked: 0, received: 0 });
    expect((refused.extra as Partial<WriteOnlyExtra>).stop_reason).toBe(
      '40 sends refused: ack error: payload_size_exceeded',
    );
    expect(refused.extra).toMatchObject({ acked_per_s: 0 });
    const server = await serverCounters(srv.port);
    // The server took the 40 small sends and none of the large ones, and delivered nothing.
    expect(server.realtime_broadcasts_received_total).toBe(40);
    expect(server.realtime_broadcast_deliveries_total).toBe(0);
  });
});
