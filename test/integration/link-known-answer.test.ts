/**
 * Known answer for an emulated client link: against a server that writes every broadcast a fixed
 * D = 30 ms after the push arrived, a run whose generator.link is 25 ms ± 4 ms each way reports
 * first-receipt latency ≈ D + 2 × 25 ms (the sender's uplink and the receiver's downlink), the
 * link's share as exactly 50 ms, the server's share ≈ D, every message delivered, and the link
 * in result.json as configured with how it was emulated.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { linkEmulationHere } from '../../src/link/link-setup.js';
import type { LinkLatencyShare } from '../../src/figures/link-share.js';
import { runBenchmark } from '../../src/run/runner.js';
import { startTestServerProcess, type TestServerProcess } from '../support/test-server-process.js';
import { profileFrom } from '../support/profiles.js';

// In a process of its own: its fixed delay must not wait on the coordinator's event loop.
let server: TestServerProcess | null = null;
const dirs: string[] = [];
afterEach(async () => {
  await server?.close();
  server = null;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const D_MS = 30;
const DELAY_MS = 25;
const JITTER_MS = 4;
/**
 * Room above the known answer for a loaded machine's scheduling: the plain known-answer test
 * allows 40 ms over its delay; a receipt through the link crosses the relay threads twice more
 * (four more waits for a CPU), so 60 here. Below it only the jitter and 1 ms of timer rounding.
 */
const SLACK_MS = 60;

describe('emulated client link, known answer', () => {
  it('latency = server delay + 2 × link delay; the server share ≈ the server delay', async () => {
    server = await startTestServerProcess({ delayMs: D_MS });
    const profile = profileFrom({
      name: 'ka-link',
      scenario: 'broadcast-public',
      target: { url: server.url },
      load: {
        join_rate: 200,
        steps: [{ connections: 30, send_rate: 10, duration: '3s' }],
        drain: '3s',
      },
      generator: {
        max_event_loop_lag_p99_ms: 2000,
        max_cpu_pct: 100,
        min_offered_ratio: 0.9,
        link: { delay: `${DELAY_MS}ms`, jitter: `${JITTER_MS}ms` },
      },
    });
    const dir = mkdtempSync(join(tmpdir(), 'rtcap-ka-link-'));
    dirs.push(dir);
    const { result, exitCode } = await runBenchmark({
      profile,
      profilePath: null,
      redactedProfile: {},
      outDir: dir,
      log: () => undefined,
    });
    expect(exitCode, result.abort_reason ?? '').toBe(0);
    const how = linkEmulationHere({ delay: DELAY_MS, jitter: JITTER_MS, loss: 0 });
    expect(result.generator.link).toEqual({
      delay_ms: DELAY_MS,
      jitter_ms: JITTER_MS,
      loss_pct: 0,
      emulation: typeof how === 'string' ? 'unreachable' : how.emulation,
    });
    const s = result.steps[0];
    expect(s.connections.joined).toBe(30);
    expect(s.messages.sent).toBe(30);
    expect(s.messages.received).toBe(30 * 29);
    expect(s.messages.lost).toBe(0);
    // Each crossing is DELAY ± JITTER: a first receipt lies in D + 2·DELAY ± 2·JITTER, plus what a
    // loaded machine adds.
    const share = 2 * DELAY_MS;
    const p50 = s.latency_ms.p50!;
    expect(p50).toBeGreaterThanOrEqual(D_MS + share - 2 * JITTER_MS - 1);
    expect(p50).toBeLessThan(D_MS + share + 2 * JITTER_MS + SLACK_MS);
    const link = s.extra.link_latency as LinkLatencyShare;
    expect(link.crossings).toBe(2);
    expect(link.link_share_ms).toBe(share);
    expect(link.jitter_spread_ms).toBe(2 * JITTER_MS);
    expect(link.server_latency_ms.p50).toBeCloseTo(p50 - share, 3);
    expect(link.server_latency_ms.p50!).toBeGreaterThanOrEqual(D_MS - 2 * JITTER_MS - 1);
    expect(link.server_latency_ms.p50!).toBeLessThan(D_MS + 2 * JITTER_MS + SLACK_MS);
    expect(link.server_latency_ms.count).toBe(s.latency_ms.count);
  });
});
