/**
 * payload-size end to end (seed 002 §3): one payload size per step on the same public
 * connections. Against the built-in server rtcap starts (tenant payload limit 50 KB, so the
 * 100 KB step is refused: the sends never leave the server — "the server could not send"),
 * and against a server given by URL that drops a known share of deliveries — "receivers
 * lost messages".
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { PayloadSizeExtra } from '../../src/result/extra.js';
import { runBenchmark } from '../../src/run/runner.js';
import { startTestServer, type TestServer } from '../support/phoenix-test-server.js';
import { profileFrom } from '../support/profiles.js';
import { tempDir } from '../support/temp-dir.js';

const quiet = () => undefined;
const out = () => tempDir('rtcap-ps-');

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe('payload-size scenario', () => {
  it('delivers each size to every receiver, egress grows with the size, and a refused size is the server not sending', async () => {
    const profile = profileFrom({
      name: 'ps-builtin',
      scenario: 'payload-size',
      target: { server: { database: false, config: { max_payload_size_in_kb: 50 } } },
      load: {
        join_rate: 100,
        ack: true,
        drain: '3s',
        steps: [64, 1024, 10_240, 102_400].map((payload_bytes) => ({
          connections: 20,
          send_rate: 5,
          payload_bytes,
          duration: '2s',
        })),
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
    expect(result.steps.map((s) => s.params.payload_bytes)).toEqual([64, 1024, 10_240, 102_400]);
    for (const s of result.steps) {
      // One sender, 19 receivers, 10 messages: expected from the topology.
      expect(s.messages).toMatchObject({
        scheduled: 10,
        sent: 10,
        expected: 10 * 19,
        duplicates: 0,
        unexpected: 0,
      });
      expect(s.messages.lost).toBe(s.messages.expected - s.messages.received);
    }
    const [b64, b1k, b10k, b100k] = result.steps;
    for (const s of [b64, b1k, b10k]) {
      expect(s.messages).toMatchObject({ received: 190, acked: 10 });
      expect(s.extra).toMatchObject({ failure_side: null, send_buffer_peak_bytes: 0 });
    }
    expect(b1k.rates.egress_mib_per_s!).toBeGreaterThan(b64.rates.egress_mib_per_s!);
    expect(b10k.rates.egress_mib_per_s!).toBeGreaterThan(b1k.rates.egress_mib_per_s!);
    expect(b10k.fanout_span_ms.count).toBe(10);
    // 100 KB is over the tenant's 50 KB: every send refused with an ack error, none delivered.
    const e = b100k.extra as Partial<PayloadSizeExtra>;
    expect(b100k.messages).toMatchObject({ received: 0, lost: 190, acked: 0 });
    expect(b100k.errors).toEqual({ 'ack error: payload_size_exceeded': 10 });
    expect(e.failure_side).toBe('server-could-not-send');
    expect(e.sender_evidence).toContain('only 0 of 10 sends acknowledged');
    expect(b100k.verdict).toBe('broken');
  });

  it('tells receivers losing messages apart (server by URL dropping 20 % of deliveries)', async () => {
    server = await startTestServer({ dropShare: 0.2 });
    const profile = profileFrom({
      name: 'ps-url',
      scenario: 'payload-size',
      target: { url: server.url },
      load: {
        join_rate: 200,
        drain: '2s',
        steps: [{ connections: 30, send_rate: 10, payload_bytes: 1024, duration: '2s' }],
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
    const s = result.steps[0];
    expect(s.messages.expected).toBe(20 * 29);
    // The server's own counts are the known answer.
    expect(s.messages.received).toBe(server.stats.deliveries);
    expect(s.messages.lost).toBe(server.stats.dropped);
    expect(s.messages.lost).toBeGreaterThan(0);
    expect(s.extra).toMatchObject({ failure_side: 'receivers-lost', sender_evidence: [] });
  });
});
