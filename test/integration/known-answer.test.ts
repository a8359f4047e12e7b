/**
 * Known answers: against a server told to delay every delivery by D ms and drop a share P,
 * rtcap must report latency ≈ D and delivery ≈ 1 − P ("Done when").
 */
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
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

function out(): string {
  return tempDir('rtcap-ka-');
}

const quiet = () => undefined;

/**
 * The first step's result of a broadcast-public run against `target`: joins at 200/s, the one
 * step `step`, a 2 s drain (and any other `load` fields), run quietly into a fresh directory.
 */
async function firstStep(
  name: string,
  target: Record<string, unknown>,
  step: { connections: number; send_rate: number; duration: string },
  load: Record<string, unknown> = {},
) {
  const profile = profileFrom({
    name,
    scenario: 'broadcast-public',
    target,
    load: { join_rate: 200, ...load, steps: [step], drain: '2s' },
  });
  const { result } = await runBenchmark({
    profile,
    profilePath: null,
    redactedProfile: {},
    outDir: out(),
    log: quiet,
  });
  return result.steps[0];
}

describe('known-answer server', () => {
  it('reports the injected delay as latency and full delivery', async () => {
    server = await startTestServer({ delayMs: 40 });
    const profile = profileFrom({
      name: 'ka-delay',
      scenario: 'broadcast-public',
      target: { url: server.url, vsn: '2.0.0' },
      load: {
        join_rate: 200,
        steps: [{ connections: 50, send_rate: 20, duration: '3s' }],
        drain: '3s',
      },
      slo: { p95_ms: 200 },
    });
    const dir = out();
    const { result, exitCode } = await runBenchmark({
      profile,
      profilePath: null,
      redactedProfile: {},
      outDir: dir,
      log: quiet,
    });
    expect(exitCode, result.abort_reason ?? '').toBe(0);
    const s = result.steps[0];
    expect(s.connections.joined).toBe(50);
    expect(s.messages.sent).toBe(60);
    // 49 receivers (the sender does not receive its own) × 60 messages.
    expect(s.messages.expected).toBe(60 * 49);
    expect(s.messages.received).toBe(60 * 49);
    expect(s.delivery_rate).toBe(1);
    expect(s.messages.duplicates).toBe(0);
    // Latency is measured from the scheduled send time, so it is at least the delay and, on
    // loopback, close to it: within a few ms on a quiet machine; the bound leaves room for a
    // loaded CI machine's scheduling (it failed at 40 + 15 ms under load average 8+), while a
    // wrong clock or origin would be off by far more.
    expect(s.latency_ms.p50!).toBeGreaterThanOrEqual(40);
    expect(s.latency_ms.p50!).toBeLessThan(40 + 40);
    expect(s.fanout_span_ms.p50!).toBeGreaterThanOrEqual(s.latency_ms.p50!);
    expect(existsSync(join(dir, 'result.json'))).toBe(true);
    expect(existsSync(join(dir, 'summary.md'))).toBe(false); // no renderer given
    const lines = readFileSync(join(dir, 'timeseries.ndjson'), 'utf8').trim().split('\n');
    expect(lines.length).toBeGreaterThan(2);
  });

  it('reports the injected drop share as lost deliveries', async () => {
    server = await startTestServer({ dropShare: 0.1 });
    const s = await firstStep(
      'ka-drop',
      { url: server.url },
      { connections: 40, send_rate: 25, duration: '2s' },
    );
    expect(s.messages.expected).toBe(50 * 39);
    // The server's own count of what it delivered is the known answer.
    expect(s.messages.received).toBe(server.stats.deliveries);
    expect(s.messages.lost).toBe(server.stats.dropped);
    expect(s.delivery_rate!).toBeGreaterThan(0.85);
    expect(s.delivery_rate!).toBeLessThan(0.95);
    expect(s.verdict).toBe('broken');
  });

  it('a reordered delivery is a delivery: duplicates 0, reordered and lost equal what the server did', async () => {
    // Every 50th message of the sender goes out 50 ms after its successor; exactly every 20th
    // (message, recipient) delivery is dropped (5 %).
    server = await startTestServer({ reorder: { every: 50, delayMs: 50 }, dropEvery: 20 });
    const s = await firstStep(
      'ka-reorder',
      { url: server.url },
      { connections: 40, send_rate: 50, duration: '3s' },
    );
    const { deliveries, dropped, reordered } = server.stats;
    expect(s.messages.sent).toBe(150);
    expect(s.messages.expected).toBe(150 * 39);
    expect(deliveries + dropped).toBe(150 * 39);
    // The test is only worth something if the server really reordered and dropped.
    expect(reordered).toBeGreaterThan(39);
    expect(dropped).toBe(Math.floor((150 * 39) / 20));
    expect(s.messages.duplicates).toBe(0);
    expect(s.messages.reordered).toBe(reordered);
    expect(s.messages.lost).toBe(dropped);
    expect(s.messages.received).toBe(deliveries);
    expect(s.messages.unexpected).toBe(0);
  });

  it('counts the sender as a recipient when the app echoes to it (phoenix dialect, self)', async () => {
    server = await startTestServer({ echoToSender: true, topicPrefix: 'room:' });
    const s = await firstStep(
      'ka-self',
      {
        url: server.url,
        dialect: 'phoenix',
        topic: 'room:bench',
        join_payload: {},
        push_event: 'broadcast',
        receive_event: 'broadcast',
      },
      { connections: 10, send_rate: 10, duration: '2s' },
      { self: true },
    );
    expect(s.messages.expected).toBe(20 * 10);
    expect(s.messages.received).toBe(20 * 10);
    expect(s.delivery_rate).toBe(1);
  });

  it('counts only frames of receive_event as deliveries, not the reply that hands the pushed payload back (phoenix dialect)', async () => {
    // The app answers each push with its payload ({:reply, {:ok, payload}, socket}) and relays
    // it to the other members as "new_msg": 20 sends × 9 other members, each received once.
    server = await startTestServer({
      replyWithPayload: true,
      fanoutEvent: 'new_msg',
      topicPrefix: 'room:',
    });
    const s = await firstStep(
      'ka-receive-event',
      {
        url: server.url,
        vsn: '2.0.0',
        dialect: 'phoenix',
        topic: 'room:bench',
        join_payload: {},
        push_event: 'broadcast',
        receive_event: 'new_msg',
      },
      { connections: 10, send_rate: 10, duration: '2s' },
    );
    expect(server.stats.payloadReplies).toBe(20);
    expect(s.messages.sent).toBe(20);
    expect(s.messages).toMatchObject({
      expected: 20 * 9,
      received: 20 * 9,
      duplicates: 0,
      unexpected: 0,
    });
    expect(s.delivery_rate).toBe(1);
  });
});
