/**
 * join-rate end to end (seed 002 §4): private joins on fresh connections per step, against the
 * built-in server rtcap starts, and against a server given by URL whose authorisation pool is
 * tiny (one connection, 100 ms per check, 1 s queue target, 3 s error window) so the pool's
 * ceiling — IncreaseConnectionPool refusals above db_pool ÷ check time — shows in seconds.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { JoinRateExtra } from '../../src/result/extra.js';
import { runBenchmark } from '../../src/run/runner.js';
import { startDatabase } from '../../src/server/db/index.js';
import type { ServerDb } from '../../src/server/db/server-db.js';
import { DEV_JWT_SECRET } from '../../src/builtin/config.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { profileFrom } from '../support/profiles.js';
import { serverCounters } from '../support/server-metrics.js';
import { tempDir } from '../support/temp-dir.js';

const quiet = () => undefined;
const out = () => tempDir('rtcap-jr-');
const POOL = 'IncreaseConnectionPool: Please increase your connection pool size';

let srv: RunningServer | null = null;
let db: ServerDb | null = null;
afterEach(async () => {
  await srv?.close();
  await db?.stop();
  srv = null;
  db = null;
});

function accounted(e: Partial<JoinRateExtra>): void {
  // No unexplained attempt: each one joined, was refused, failed otherwise or was still out.
  expect(e.join_attempts).toBe(
    e.join_succeeded! + e.join_rejected! + e.join_failed_other! + e.join_pending_at_end!,
  );
  expect(e.join_rejected).toBe(
    Object.values(e.rejections_by_reason ?? {}).reduce((a, b) => a + b, 0),
  );
}

describe('join-rate scenario', () => {
  it('joins each step on fresh connections, reads db_pool from the built-in server and the check time from its replies', async () => {
    // slow-* topics: each check sleeps 100 ms (built-in default), under its 10/s ceiling here,
    // 500 ms apart: no join waits for another, so the replies show the check time, not a queue.
    const profile = profileFrom({
      name: 'jr-builtin',
      scenario: 'join-rate',
      private: { topic_prefix: 'slow-' },
      load: {
        drain: '2s',
        steps: [
          { connections: 10, join_rate: 2, send_rate: 2, duration: '2s' },
          { connections: 8, join_rate: 5, duration: '1s' },
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
    const [a, b] = result.steps;
    const ea = a.extra as Partial<JoinRateExtra>;
    const eb = b.extra as Partial<JoinRateExtra>;
    expect(ea).toMatchObject({
      join_attempts: 10,
      join_succeeded: 10,
      join_rejected: 0,
      join_failed_other: 0,
      join_pending_at_end: 0,
      rejections_by_reason: {},
      recovered: null,
      db_pool: 1,
      reconnects: null,
    });
    expect(ea.auth_check_ms_p50).toBeGreaterThanOrEqual(100);
    expect(ea.predicted_ceiling_per_s).toBeCloseTo(1 / (ea.auth_check_ms_p50! / 1000), 0);
    expect(ea.measured_ceiling_per_s).toBeGreaterThan(0);
    expect(ea.measured_ceiling_per_s).toBeLessThanOrEqual(10);
    // Connection 0 broadcasts 4 messages to the other 9 members of the step's private topic.
    expect(a.messages).toMatchObject({ sent: 4, expected: 4 * 9, received: 36, lost: 0 });
    // The second step's 8 joins are its own: the first step's 10 connections were closed.
    expect(eb).toMatchObject({ join_attempts: 8, join_succeeded: 8, join_rejected: 0 });
    expect(b.extra).toMatchObject({ members_at_end: 8 });
    expect(b.connections).toMatchObject({ target: 8, joined: 8 });
    accounted(ea);
    accounted(eb);
  }, 120_000);

  it('shows the pool ceiling: IncreaseConnectionPool above db_pool ÷ check time, then recovery through reconnects (server by URL)', async () => {
    db = await startDatabase({
      dbPool: 1,
      subsPoolSize: 1,
      slowPolicyMs: 100,
      queueTargetMs: 1000,
      authErrorWindowMs: 3000,
    });
    srv = await startServer({
      port: 0,
      db,
      log: quiet,
      timings: { channelErrorBackoffMs: 100, connectErrorBackoffMs: 100 },
    });
    const profile = profileFrom({
      name: 'jr-url',
      scenario: 'join-rate',
      target: { url: srv.url, auth: { jwt_secret: DEV_JWT_SECRET }, join_timeout: '5s' },
      private: { topic_prefix: 'slow-', db_pool: 1 },
      load: {
        drain: '1s',
        // Backoff that spreads the retries below the ceiling; retries every second or faster
        // would trip the pool again as it heals (seed 002 §4: clients
        // reconnecting together trip the pool a second time).
        reconnect: {
          enabled: true,
          initial_backoff: '500ms',
          max_backoff: '4s',
          jitter: 0.5,
          max_attempts: 30,
        },
        steps: [
          // Well under the ceiling of 1 ÷ 100 ms = 10/s, 500 ms apart: no join waits for another,
          // so the replies show the check time, not a queue (on a loaded machine too: a 100 ms
          // check stands out of the scheduling jitter that a 50 ms one drowned in, and a join
          // held up by a stall waits well within the 1 s queue target).
          { connections: 5, join_rate: 2, duration: '1s' },
          // Eight times over it: the queue passes 1 s, the pool trips for its 3 s window. 20
          // members retrying over a backoff of up to 4 s come back under the ceiling, and 20 s
          // leave a loaded machine the time to get every one in.
          { connections: 20, join_rate: 80, duration: '20s' },
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
    const [a, b] = result.steps;
    const ea = a.extra as Partial<JoinRateExtra>;
    const eb = b.extra as Partial<JoinRateExtra>;
    expect(ea).toMatchObject({ join_succeeded: 5, join_rejected: 0, db_pool: 1 });
    // Each check sleeps 100 ms in the slow policy, so the reply cannot come sooner.
    expect(ea.auth_check_ms_p50).toBeGreaterThanOrEqual(100);
    expect(ea.predicted_ceiling_per_s).toBeLessThanOrEqual(10);
    expect(eb.rejections_by_reason?.[POOL]).toBeGreaterThan(0);
    expect(b.errors[`join refused: ${POOL}`]).toBe(eb.rejections_by_reason![POOL]);
    // The server's refusal, quoted first: the step is broken by it, whatever the generator did.
    expect(b.verdict, b.verdict_reasons.join('; ')).toBe('broken');
    expect(b.verdict_reasons[0]).toBe(
      `server rejection: “join refused: ${POOL}” ×${eb.rejections_by_reason![POOL]}`,
    );
    expect(b.verdict_reasons.some((r) => r.includes('connections failed or were rejected'))).toBe(
      true,
    );
    // Served one check at a time: never the 80/s asked for.
    expect(eb.measured_ceiling_per_s).toBeLessThan(80);
    // The window cleared and reconnects (backoff with jitter) got every connection in.
    expect(eb.recovered).toBe(true);
    expect(eb.first_rejection_to_recovery_s).toBeGreaterThan(0);
    expect(eb.reconnects).toBeGreaterThanOrEqual(eb.join_rejected!);
    expect(eb.join_succeeded).toBe(20);
    expect(eb.join_attempts).toBe(20 + eb.reconnects!);
    accounted(ea);
    accounted(eb);
    // The server's own counts: every accepted join and every refusal rtcap reports.
    const server = await serverCounters(srv.port);
    expect(server.realtime_channel_joins_total).toBe(ea.join_succeeded! + eb.join_succeeded!);
    expect(server.realtime_channel_join_errors_total).toBe(ea.join_rejected! + eb.join_rejected!);
  }, 120_000);
});
