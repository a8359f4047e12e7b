/**
 * broadcast-private end to end (seed 002 §2): rooms × members on private topics, each
 * connection with its own JWT, against the built-in server rtcap starts, and against a
 * server started here and named by URL. Expected comes from the topology; the server's own
 * counters are the known answer for what was sent and delivered.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { BroadcastPrivateExtra } from '../../src/result/extra.js';
import { runBenchmark } from '../../src/run/runner.js';
import { startDatabase } from '../../src/server/db/index.js';
import type { ServerDb } from '../../src/server/db/server-db.js';
import { DEV_JWT_SECRET } from '../../src/builtin/config.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { profileFrom } from '../support/profiles.js';
import { serverCounters } from '../support/server-metrics.js';
import { tempDir } from '../support/temp-dir.js';

const quiet = () => undefined;
const out = () => tempDir('rtcap-bp-');

let srv: RunningServer | null = null;
let db: ServerDb | null = null;
afterEach(async () => {
  await srv?.close();
  await db?.stop();
  srv = null;
  db = null;
});

describe('broadcast-private scenario', () => {
  it('expects rooms × (members − 1) × messages per room, and starts fresh connections for a new topology', async () => {
    const profile = profileFrom({
      name: 'bp-builtin',
      scenario: 'broadcast-private',
      load: {
        join_rate: 100,
        drain: '3s',
        workers: 2,
        steps: [
          { rooms: 4, members: 3, connections: 12, room_send_rate: 2, duration: '2s' },
          { rooms: 3, members: 2, connections: 6, room_send_rate: 2, duration: '2s' },
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
    expect(result.target.builtin).toBe(true);
    const [a, b] = result.steps;
    // 4 rooms × 2/s × 2 s = 16 messages, 4 per room, each to the 2 other members of its room.
    expect(a.messages).toMatchObject({
      scheduled: 16,
      sent: 16,
      send_failed: 0,
      expected: 4 * (3 - 1) * 4,
      duplicates: 0,
      unexpected: 0,
    });
    // 3 rooms × 2/s × 2 s = 12 messages, to the 1 other member.
    expect(b.messages).toMatchObject({
      scheduled: 12,
      sent: 12,
      expected: 3 * (2 - 1) * 4,
      duplicates: 0,
      unexpected: 0,
    });
    for (const s of [a, b]) {
      expect(s.messages.lost).toBe(s.messages.expected - s.messages.received);
      expect(s.delivery_rate).toBe(s.messages.received / s.messages.expected);
      expect(s.messages.received).toBe(s.messages.expected);
      expect(s.errors).toEqual({});
    }
    expect(a.connections).toMatchObject({ target: 12, joined: 12, failed: 0 });
    // Members of the first topology were closed: the second step's 6 joined afresh, 6 members in
    // all.
    expect(b.connections).toMatchObject({ target: 6, joined: 6, failed: 0 });
    expect(b.extra).toMatchObject({ joined_in_step: 6, members_at_end: 6 });
    const e = a.extra as Partial<BroadcastPrivateExtra>;
    expect(e).toMatchObject({
      rooms: 4,
      members_per_room: 3,
      room_send_rate_per_s: 2,
      auth_denied: 0,
      auth_check_ms: null,
    });
    expect(e.join_reply_ms?.p50).toBeGreaterThan(0);
    expect(a.params).toMatchObject({ rooms: 4, members: 3, send_rate: 8, receivers: 2 });
  });

  it('runs against a server given by URL, and its own counters agree with what rtcap counted', async () => {
    db = await startDatabase({ dbPool: 2, subsPoolSize: 1 });
    srv = await startServer({ port: 0, db, log: quiet });
    const profile = profileFrom({
      name: 'bp-url',
      scenario: 'broadcast-private',
      target: { url: srv.url, vsn: '2.0.0', auth: { jwt_secret: DEV_JWT_SECRET } },
      private: { topic_prefix: 'bench-', sub_prefix: 'member-' },
      load: {
        join_rate: 100,
        drain: '3s',
        steps: [{ rooms: 5, members: 4, connections: 20, room_send_rate: 3, duration: '2s' }],
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
    expect(result.target.builtin).toBe(false);
    const s = result.steps[0];
    expect(s.messages).toMatchObject({
      sent: 30,
      expected: 5 * (4 - 1) * 6,
      received: 90,
      lost: 0,
      duplicates: 0,
      unexpected: 0,
    });
    const server = await serverCounters(srv.port);
    // Every join the server accepted is one rtcap counted, every broadcast it took one rtcap sent,
    // every frame it wrote one a receiver recorded.
    expect(server.realtime_channel_joins_total).toBe(20);
    expect(server.realtime_channel_join_errors_total).toBe(0);
    expect(server.realtime_broadcasts_received_total).toBe(s.messages.sent);
    expect(server.realtime_broadcast_deliveries_total).toBe(s.messages.received);
  });
});
