/**
 * Known answers for a mixed step: broadcast and presence on the same
 * connections against a server that serves broadcast pushes from one queue at exactly 10/s
 * while the step offers 20/s; presence tracks it answers at once. rtcap's generator keeps every
 * kind's schedule (it is open-model: a slow server never slows its sends), so each kind's
 * offered ratio is 1 and the step is NOT generator-bound: it is the server that held broadcasts
 * back, which is the server's latency — `degraded`, named by the kind (broadcast), although the
 * step's headline kind (presence) is well within the SLO. Each kind's counts equal the server's.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/phoenix-test-server.js';
import { profileFrom } from '../support/profiles.js';
import { runScenario } from '../support/scenario-run.js';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

interface KindExtra {
  sent: number;
  expected: number;
  received: number;
  lost: number;
  reordered: number;
  duplicates: number;
  sent_per_s: number;
  delivered_per_s: number | null;
  delivered_per_s_60s_max: number | null;
  offered_ratio: number | null;
  latency_ms: { p50: number | null; p95: number | null; p99: number | null };
}

describe('known-answer server: a mixed step whose broadcasts the server serves at half the offered rate', () => {
  it('offered 1.0 for every kind; figures per kind equal the server counts; degraded by broadcast alone', async () => {
    const cap = 10;
    server = await startTestServer({ broadcastsPerS: cap });
    const profile = profileFrom({
      name: 'ka-mixed',
      scenario: 'mixed',
      target: { url: server.url, vsn: '2.0.0' },
      // 2 rooms of 4: 10 broadcasts/s per room (20/s offered, 40 in 2 s, served over 4 s),
      // half the members updating their presence each second (8 tracks).
      load: {
        join_rate: 100,
        drain: '5s',
        steps: [
          {
            connections: 8,
            members: 4,
            room_send_rate: 10,
            update_share: 0.5,
            components: ['broadcast', 'presence'],
            duration: '2s',
          },
        ],
      },
      slo: { p95_ms: 500 },
    });
    const { result } = await runScenario(profile);
    const s = result.steps[0];
    const kinds = s.extra.kinds as Record<'broadcast' | 'presence', KindExtra>;
    const b = kinds.broadcast;
    const p = kinds.presence;

    // Broadcast: 40 pushes, each to the 3 other members of its room, all of it written late.
    expect(server.stats.pushes).toBe(40);
    expect(b).toMatchObject({ sent: 40, expected: 120, received: 120, lost: 0 });
    expect(b.received).toBe(server.stats.deliveries);
    // Presence: 8 updates (after each member's join track), each diff to all 4 members.
    expect(server.stats.presenceUpdates).toBe(8);
    expect(p).toMatchObject({ sent: 8, expected: 32, received: 32, lost: 0 });
    expect(p.received).toBe(server.stats.presenceUpdateDiffs);
    expect(s.messages.duplicates).toBe(0);
    expect([b.duplicates, b.reordered, p.duplicates, p.reordered]).toEqual([0, 0, 0, 0]);

    // The generator kept both schedules: sends by send time at the offered 20/s, offered 1.0
    // per kind; the server's cap shows in the deliveries, 10 pushes × 3 recipients a second.
    expect(s.generator.offered_by_part).toEqual({ broadcast: 1, presence: 1, joins: 1 });
    expect(s.generator.offered_ratio).toBe(1);
    expect(b.offered_ratio).toBe(1);
    expect(p.offered_ratio).toBe(1);
    expect(b.sent_per_s).toBe(20);
    expect(b.delivered_per_s!).toBeLessThanOrEqual((cap + 1) * 3);
    expect(b.delivered_per_s_60s_max!).toBeGreaterThan(0);
    expect(b.delivered_per_s_60s_max!).toBeLessThanOrEqual((cap + 1) * 3);
    expect(p.delivered_per_s_60s_max!).toBeGreaterThan(0);

    // The headline kind (presence) is within the SLO; broadcast waited up to 2 s in the queue.
    expect(s.latency_ms.p95!).toBeLessThan(500);
    expect(p.latency_ms.p95!).toBeLessThan(500);
    expect(b.latency_ms.p95!).toBeGreaterThan(1000);
    expect(s.verdict).toBe('degraded');
    expect(s.verdict_reasons).toHaveLength(1);
    expect(s.verdict_reasons[0]).toMatch(/^broadcast p95 [\d,]+ ms > SLO 500 ms$/);
  }, 60_000);

  it('reordered and duplicate receipts per kind: the server reorders broadcasts only', async () => {
    // Every 3rd broadcast push of each sender goes out 100 ms after its successor (which comes
    // 400 ms later: each of a room's 4 members sends every 4th of its 10/s; unpaired, 1 s).
    server = await startTestServer({ reorder: { every: 3, delayMs: 100 } });
    const profile = profileFrom({
      name: 'ka-mixed-reorder',
      scenario: 'mixed',
      target: { url: server.url, vsn: '2.0.0' },
      load: {
        join_rate: 100,
        drain: '3s',
        steps: [
          {
            connections: 8,
            members: 4,
            room_send_rate: 10,
            update_share: 0.5,
            components: ['broadcast', 'presence'],
            duration: '2s',
          },
        ],
      },
      slo: { p95_ms: 2000 },
    });
    const { result } = await runScenario(profile);
    const s = result.steps[0];
    const kinds = s.extra.kinds as Record<'broadcast' | 'presence', KindExtra>;
    expect(server.stats.reordered).toBeGreaterThan(0);
    expect(kinds.broadcast).toMatchObject({
      sent: 40,
      expected: 120,
      received: 120,
      lost: 0,
      duplicates: 0,
      reordered: server.stats.reordered,
    });
    expect(kinds.presence).toMatchObject({
      sent: 8,
      expected: 32,
      received: 32,
      lost: 0,
      duplicates: 0,
      reordered: 0,
    });
    expect(s.messages.reordered).toBe(server.stats.reordered);
    expect(s.messages.duplicates).toBe(0);
    expect(s.verdict).toBe('stable');
  }, 60_000);

  it('presence tracks the server never answers are counted from the bounded pending state, and break the step', async () => {
    // Every 4th presence update gets no reply (its diff still goes out): 2 of the 8.
    server = await startTestServer({ trackSilenceEvery: 4 });
    const profile = profileFrom({
      name: 'ka-mixed-tracks',
      scenario: 'mixed',
      target: { url: server.url, vsn: '2.0.0' },
      load: {
        join_rate: 100,
        ack_timeout: '1s',
        drain: '2s',
        steps: [
          {
            connections: 8,
            members: 4,
            room_send_rate: 10,
            update_share: 0.5,
            components: ['broadcast', 'presence'],
            duration: '2s',
          },
        ],
      },
      slo: { p95_ms: 2000 },
    });
    const { result } = await runScenario(profile);
    const s = result.steps[0];
    const kinds = s.extra.kinds as Record<'broadcast' | 'presence', KindExtra>;
    expect(server.stats.presenceUpdates).toBe(8);
    expect(server.stats.trackSilences).toBe(2);
    expect(s.extra.presence_tracks_unanswered).toBe(server.stats.trackSilences);
    expect(s.extra.presence_tracks_untracked).toBe(0);
    expect(kinds.presence).toMatchObject({ sent: 8, expected: 32, received: 32, lost: 0 });
    expect(kinds.broadcast).toMatchObject({ sent: 40, expected: 120, received: 120, lost: 0 });
    expect(s.verdict).toBe('broken');
    expect(s.verdict_reasons).toEqual(['2 presence tracks never answered']);
  }, 60_000);
});
