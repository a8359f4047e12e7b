/**
 * Many generator processes with few connections each (the planner's 34 processes of a
 * 500,000-connection run, scaled down) against the built-in server with a 5 s idle timeout and
 * 2 s heartbeats. Known answers: 16 processes of 4 connections make every one of the 64 joins on
 * schedule, and no connection is lost over a steady phase three idle timeouts long; 8 processes
 * of 4 lose none either when every process's event loop stalls 3 s at a time once it is running
 * (its 1 s ticks come ~3 s apart). Heartbeats counted one slot a tick came ~6 s apart, and the
 * server closed every socket as idle ('closed by server: 1000'); heartbeats all put off until the
 * loop's next read of its sockets were held by the next stall with them, 6.7 s apart, with the same
 * result (19 of 32 joins answered).
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_JWT_SECRET } from '../../src/builtin/config.js';
import { runBenchmark } from '../../src/run/runner.js';
import type { RunningServer } from '../../src/server/server.js';
import { serve } from '../server/helpers.js';
import { profileFrom } from '../support/profiles.js';
import { tempDir } from '../support/temp-dir.js';

const STALL = fileURLToPath(new URL('../support/loop-stall.mjs', import.meta.url));

let server: RunningServer;
beforeAll(async () => {
  server = await serve({ timings: { idleTimeoutMs: 5_000 } });
});
afterAll(async () => {
  delete process.env.RTCAP_WORKER_EXEC_ARGV;
  await server.close();
});

async function run(name: string, processes: number) {
  const connections = processes * 4;
  const profile = profileFrom({
    name,
    scenario: 'broadcast-public',
    target: {
      url: server.url,
      vsn: '2.0.0',
      heartbeat_interval: '2s',
      auth: { jwt_secret: DEV_JWT_SECRET },
    },
    load: {
      workers: processes,
      join_rate: processes * 2,
      drain: '1s',
      steps: [{ connections, send_rate: 0, duration: '15s' }],
    },
  });
  const { result } = await runBenchmark({
    profile,
    profilePath: null,
    redactedProfile: {},
    outDir: tempDir(`rtcap-${name}-`),
    log: () => undefined,
  });
  expect(result.generator.workers).toBe(processes);
  const step = result.steps[0];
  const c = step.connections;
  // None lost: every join answered ok, every member held through three idle timeouts.
  expect(c.first_joins).toBe(connections);
  expect(c.joined).toBe(connections);
  expect(c.failed).toBe(0);
  expect(c.disconnected).toBe(0);
  expect(c.open_at_end).toBe(connections);
  expect(step.errors).toEqual({});
  return step;
}

describe('many generator processes of 4 connections each', () => {
  it('16 processes join on schedule (2 joins a second each) and lose no connection', async () => {
    const step = await run('many-generators', 16);
    expect(step.generator.offered_ratio).toBeGreaterThanOrEqual(0.99);
    expect(step.connections.join_latency_ms.p95!).toBeLessThan(1_000);
  }, 180_000);

  it('8 processes lose no connection when each lags 3 s at a time: heartbeats keep their interval', async () => {
    process.env.RTCAP_WORKER_EXEC_ARGV = `--import ${STALL}`;
    try {
      await run('many-generators-lagging', 8);
    } finally {
      delete process.env.RTCAP_WORKER_EXEC_ARGV;
    }
  }, 180_000);
});
