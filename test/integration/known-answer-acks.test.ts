/**
 * Known answers for acked sends: against a server that leaves exactly every
 * 10th acked push unanswered, rtcap's acked equals the server's acks, its unacked the server's
 * silences, and the step is not stable; against one that answers every push, acked == sent.
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

const quiet = () => undefined;

function writeOnlyProfile(url: string) {
  return profileFrom({
    name: 'ka-acks',
    scenario: 'write-only',
    target: { url, vsn: '2.0.0' },
    // 5 senders, 50 sends/s for 2 s: 100 acked sends. A 1 s ack timeout keeps the drain short.
    load: {
      join_rate: 100,
      ack: true,
      ack_timeout: '1s',
      steps: [{ connections: 5, send_rate: 50, duration: '2s' }],
      drain: '4s',
    },
  });
}

async function run(profile: ReturnType<typeof writeOnlyProfile>) {
  const { result } = await runBenchmark({
    profile,
    profilePath: null,
    redactedProfile: {},
    outDir: tempDir('rtcap-ka-acks-'),
    log: quiet,
  });
  return result.steps[0];
}

describe('known-answer server: acked sends', () => {
  it('counts what the server acknowledged: its silences are unacked and the step is not stable', async () => {
    server = await startTestServer({ ackSilenceEvery: 10 });
    const s = await run(writeOnlyProfile(server.url));
    expect(s.messages.sent).toBe(100);
    expect(server.stats.pushes).toBe(100);
    expect(server.stats.ackSilences).toBe(10);
    expect(s.messages.acked).toBe(server.stats.acks);
    expect(s.messages.unacked).toBe(server.stats.ackSilences);
    expect(s.messages.ack_errors).toBe(0);
    expect(s.messages.ack_untracked).toBe(0);
    expect(s.verdict).toBe('broken');
    expect(s.verdict_reasons).toContain('10 sends never acknowledged');
    // Acks by ack time over the steady window: about 45/s; never more than was sent.
    expect(s.rates.acked_per_s).not.toBeNull();
    expect(s.rates.acked_per_s!).toBeLessThanOrEqual(50);
    expect(s.extra.stop_reason).toBe('10 of 100 sends never acknowledged');
  }, 30_000);

  it('a server answering every push: acked == sent, stable', async () => {
    server = await startTestServer({});
    const s = await run(writeOnlyProfile(server.url));
    expect(s.messages.sent).toBe(100);
    expect(server.stats.acks).toBe(100);
    expect(s.messages.acked).toBe(100);
    expect(s.messages.unacked).toBe(0);
    expect(s.verdict).toBe('stable');
    // Latency from the scheduled send time, on loopback: small but measured.
    expect((s.extra.ack_latency_ms as { p50: number }).p50).toBeGreaterThanOrEqual(0);
  }, 30_000);
});
