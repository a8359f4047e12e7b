/**
 * Postgres Changes end to end (seed §6): subscribers on the built-in server's embedded
 * PostgreSQL, rows inserted by rtcap's loader, and the same against a server at a URL with
 * its database URL. Expected = rounds × subscribers (× the rows of their room when filtered).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { PostgresChangesExtra } from '../../src/result/extra.js';
import type { StepResult } from '../../src/result/result.js';
import { DEV_JWT_SECRET } from '../../src/builtin/config.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { expectConsistentStep, runScenario } from '../support/scenario-run.js';
import { profileFrom } from '../support/profiles.js';

let srv: RunningServer | null = null;
afterEach(async () => {
  await srv?.close();
  srv = null;
});

function checkChangesStep(
  step: StepResult,
  timeline: Parameters<typeof expectConsistentStep>[1],
  subscribers: number,
  rounds: number,
  perRound: number,
) {
  expectConsistentStep(step, timeline);
  const e = step.extra as Partial<PostgresChangesExtra> & Record<string, unknown>;
  // Reconciliation: every subscriber's binding confirmed by "Subscribed to PostgreSQL".
  expect(e.subscribers).toBe(subscribers);
  expect(e.subscribed).toBe(subscribers);
  expect(step.messages.sent).toBe(rounds * perRound);
  expect(e.rounds).toBe(rounds);
  expect(e.changes_per_round).toBe(perRound);
  // Each round reaches every subscriber once.
  expect(step.messages.expected).toBe(rounds * subscribers);
  expect(e.deliveries_expected).toBe(step.messages.expected);
  expect(e.deliveries_received).toBe(step.messages.received);
  expect(e.deliveries_missing).toBe(step.messages.lost);
  expect(step.messages.received).toBe(step.messages.expected);
  expect(e.inserts_failed).toBe(0);
  // A row commits after its scheduled insert time, so (same host, commit_timestamp in whole ms)
  // the latency from the commit is at most the one from the scheduled time.
  expect(e.latency_from_insert_ms!.p50).not.toBeNull();
  expect(e.latency_from_commit_ms!.p50!).toBeLessThanOrEqual(e.latency_from_insert_ms!.p50! + 2);
}

describe('postgres-changes scenario', () => {
  it('against the built-in server: unfiltered, then filtered over rooms', async () => {
    const profile = profileFrom({
      name: 'cdc-e2e',
      scenario: 'postgres-changes',
      load: {
        join_rate: 100,
        drain: '5s',
        steps: [
          // 2 rows/s for 2 s: 4 rounds of one row, each seen by the 20 subscribers.
          { connections: 20, insert_rate: 2, duration: '2s' },
          // 4 rooms of 5 filtered subscribers, 8 rows/s for 2 s: 4 rounds of one row per room.
          { connections: 20, rooms: 4, filtered: true, insert_rate: 8, duration: '2s' },
        ],
      },
      slo: { p95_ms: 2000 },
    });
    const { result, exitCode, timeline } = await runScenario(profile);
    expect(exitCode).toBe(0);
    const [a, b] = result.steps;
    checkChangesStep(a, timeline, 20, 4, 1);
    expect(a.extra.filtered).toBe(false);
    checkChangesStep(b, timeline, 20, 4, 4);
    expect(b.extra.filtered).toBe(true);
    // The built-in server's poller, read from its /metrics; its subscription pool.
    expect(a.extra.poll_ms_max).toEqual(expect.any(Number));
    expect(a.extra.subs_pool_size).toBe(1);
  }, 120_000);

  it('against a server at a URL, inserting through target.database_url', async () => {
    srv = await startServer({ port: 0, log: () => undefined });
    expect(srv.databaseConnectionString).not.toBeNull();
    const profile = profileFrom({
      name: 'cdc-url',
      scenario: 'postgres-changes',
      target: {
        url: srv.url,
        database_url: srv.databaseConnectionString!,
        auth: { jwt_secret: DEV_JWT_SECRET },
        metrics_url: `http://127.0.0.1:${srv.port}/metrics`,
      },
      load: {
        join_rate: 100,
        drain: '5s',
        steps: [{ connections: 15, rooms: 3, filtered: true, insert_rate: 6, duration: '2s' }],
      },
      slo: { p95_ms: 2000 },
    });
    const { result, exitCode, timeline } = await runScenario(profile);
    expect(exitCode).toBe(0);
    expect(result.target.builtin).toBe(false);
    const s = result.steps[0];
    checkChangesStep(s, timeline, 15, 4, 3);
    // Not rtcap's server: its pool size is unknown, its poller read from metrics_url.
    expect(s.extra.subs_pool_size).toBeNull();
    expect(s.extra.poll_ms_max).toEqual(expect.any(Number));
  }, 120_000);
});
