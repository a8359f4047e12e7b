/**
 * Presence end to end (seed §5): against the built-in server rtcap starts, and against a
 * server at a URL. Expected is computed from the topology — updates × members, the tracker
 * included (its own presence_diff comes back to it, as in Phoenix and Supabase) — and
 * every figure must agree with the others.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { PresenceExtra } from '../../src/result/extra.js';
import { DEV_JWT_SECRET } from '../../src/builtin/config.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { expectConsistentStep, runScenario } from '../support/scenario-run.js';
import { profileFrom } from '../support/profiles.js';

let srv: RunningServer | null = null;
afterEach(async () => {
  await srv?.close();
  srv = null;
});

function checkPresenceStep(
  step: Parameters<typeof expectConsistentStep>[0],
  timeline: Parameters<typeof expectConsistentStep>[1],
  members: number,
  updates: number,
) {
  expectConsistentStep(step, timeline);
  const e = step.extra as Partial<PresenceExtra> & Record<string, number>;
  expect(step.messages.sent).toBe(updates);
  // Every update reaches every member of its topic, the tracker included.
  expect(step.messages.expected).toBe(updates * members);
  expect(step.messages.received).toBe(step.messages.expected);
  expect(step.delivery_rate).toBe(1);
  expect(e.members_per_topic).toBe(members);
  expect(e.presence_errors).toBe(0);
  expect(e.presence_deliveries_per_s! * step.params.duration_s).toBeCloseTo(
    step.messages.received,
    -1,
  );
  // Every track (one at each join, then the updates) was acknowledged.
  expect(e.presence_track_replies).toBe(e.joined_in_step + updates);
  expect(e.presence_latency_ms!.p50).not.toBeNull();
}

describe('presence scenario', () => {
  it('against the built-in server: rooms of 4, then a new topology of one room of 10', async () => {
    const profile = profileFrom({
      name: 'presence-e2e',
      scenario: 'presence',
      target: { server: { database: false } },
      load: {
        join_rate: 100,
        drain: '3s',
        steps: [
          { connections: 12, members: 4, update_share: 0.5, duration: '2s' },
          { connections: 10, members: 10, update_share: 0.5, duration: '2s' },
        ],
      },
    });
    const { result, exitCode, timeline } = await runScenario(profile);
    expect(exitCode).toBe(0);
    expect(result.status).toBe('completed');
    const [a, b] = result.steps;
    checkPresenceStep(a, timeline, 4, 12);
    expect(a.extra.topics).toBe(3);
    checkPresenceStep(b, timeline, 10, 10);
    // The second step closed the first one's connections and joined 10 new ones.
    expect(b.extra.joined_in_step).toBe(10);
    // Each joiner downloads the state of the members tracked before it: the snapshots grow,
    // the largest holding (about) 9 entries.
    expect(b.extra.snapshots_received).toBe(10);
    expect(b.extra.snapshot_bytes_per_member).toBeGreaterThan(
      b.extra.snapshot_bytes_mean as number,
    );
    expect(b.extra.snapshot_bytes_per_member).toBeGreaterThan(
      5 * (b.extra.snapshot_bytes_per_entry as number),
    );
    // The built-in server enforces no presence quota unless configured.
    expect(b.extra.presence_quota_per_s).toBeNull();
    expect(b.extra.presence_quota_needed_per_s).toBe(50); // 1 topic × 10² × 0.5
  }, 90_000);

  it('against a server at a URL, with the quota declared for the §5 arithmetic', async () => {
    srv = await startServer({ port: 0, database: false, log: () => undefined });
    const profile = profileFrom({
      name: 'presence-url',
      scenario: 'presence',
      target: { url: srv.url, auth: { jwt_secret: DEV_JWT_SECRET } },
      load: {
        join_rate: 100,
        drain: '3s',
        steps: [{ connections: 10, members: 5, update_share: 0.5, duration: '2s' }],
      },
      analysis: { presence_quota_per_s: 1000 },
    });
    const { result, exitCode, timeline } = await runScenario(profile);
    expect(exitCode).toBe(0);
    expect(result.target.builtin).toBe(false);
    const s = result.steps[0];
    checkPresenceStep(s, timeline, 5, 10);
    expect(s.extra.presence_quota_per_s).toBe(1000);
    expect(s.extra.allowed_topic_updates_per_s).toBe(200); // quota ÷ members
  }, 60_000);
});
