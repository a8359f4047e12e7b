/**
 * Mixed load end to end: each component solo, then all three on the same connections, against
 * the built-in server and against a server at a URL. Each component's expected is computed from
 * the topology, and the mixed step's solo latency is the solo step's own figure.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { MixedComponent, MixedExtra } from '../../src/result/extra.js';
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

// 2 rooms of 4: 2 broadcasts/s per room, half the members updating each second, 2 rows/s, for 2 s.
const levels = {
  connections: 8,
  members: 4,
  room_send_rate: 2,
  update_share: 0.5,
  insert_rate: 2,
  duration: '2s',
};
// Expected per component: 8 broadcasts × 3 other members; 8 updates × 4 members (the tracker
// gets its own diff); 4 rows × 8 subscribers.
const EXPECTED: Record<MixedComponent['name'], { sent: number; expected: number }> = {
  broadcast: { sent: 8, expected: 24 },
  presence: { sent: 8, expected: 32 },
  'postgres-changes': { sent: 4, expected: 32 },
};

function components(step: StepResult): MixedComponent[] {
  return (step.extra as Partial<MixedExtra>).components ?? [];
}

function checkComponents(step: StepResult, names: MixedComponent['name'][]) {
  const comps = components(step);
  expect(comps.map((c) => c.name)).toEqual(names);
  for (const c of comps) {
    expect({ name: c.name, sent: c.sent, expected: c.expected }).toEqual({
      name: c.name,
      ...EXPECTED[c.name],
    });
    expect(c.received).toBe(c.expected);
    expect(c.lost).toBe(c.expected! - c.received!);
    expect(c.delivery_rate).toBe(1);
    expect(c.latency_ms.p50).not.toBeNull();
  }
}

describe('mixed scenario', () => {
  it('against the built-in server: each component solo, then all three beside their solo latency', async () => {
    const profile = profileFrom({
      name: 'mixed-e2e',
      scenario: 'mixed',
      load: {
        join_rate: 100,
        drain: '5s',
        steps: [
          { ...levels, components: ['broadcast'] },
          { ...levels, components: ['presence'] },
          { ...levels, components: ['postgres-changes'] },
          { ...levels },
        ],
      },
      slo: { p95_ms: 2000 },
    });
    const { result, exitCode, timeline } = await runScenario(profile);
    expect(exitCode).toBe(0);
    const [b, p, c, all] = result.steps;
    for (const s of result.steps) expectConsistentStep(s, timeline);
    checkComponents(b, ['broadcast']);
    checkComponents(p, ['presence']);
    checkComponents(c, ['postgres-changes']);
    checkComponents(all, ['broadcast', 'presence', 'postgres-changes']);
    // Same connections throughout: joined once, in the first step.
    expect([b, p, c, all].map((s) => s.extra.joined_in_step)).toEqual([8, 0, 0, 0]);
    // The mixed step's solo figures are the solo steps' own.
    const solo = [b, p, c].map((s) => components(s)[0].latency_ms);
    expect(components(all).map((x) => x.solo_latency_ms)).toEqual(solo);
    expect(components(b)[0].solo_latency_ms).toBeNull();
    // The step's headline is Postgres Changes when it runs; the kinds add up to what was streamed.
    expect(all.messages.expected).toBe(EXPECTED['postgres-changes'].expected);
  }, 120_000);

  it('against a server at a URL with its database URL', async () => {
    srv = await startServer({ port: 0, log: () => undefined });
    const profile = profileFrom({
      name: 'mixed-url',
      scenario: 'mixed',
      target: {
        url: srv.url,
        database_url: srv.databaseConnectionString!,
        auth: { jwt_secret: DEV_JWT_SECRET },
      },
      load: {
        join_rate: 100,
        drain: '5s',
        steps: [{ ...levels, components: ['postgres-changes'] }, { ...levels }],
      },
      slo: { p95_ms: 2000 },
    });
    const { result, exitCode, timeline } = await runScenario(profile);
    expect(exitCode).toBe(0);
    const [c, all] = result.steps;
    for (const s of result.steps) expectConsistentStep(s, timeline);
    checkComponents(c, ['postgres-changes']);
    checkComponents(all, ['broadcast', 'presence', 'postgres-changes']);
    const comps = components(all);
    expect(comps[2].solo_latency_ms).toEqual(components(c)[0].latency_ms);
    // No solo step of broadcast or presence in this run.
    expect([comps[0].solo_latency_ms, comps[1].solo_latency_ms]).toEqual([null, null]);
  }, 120_000);
});
