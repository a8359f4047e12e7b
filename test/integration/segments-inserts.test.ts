/**
 * Postgres Changes split over 2 segments: each segment inserts the rows of its own
 * insert streams (stream n by segment n mod 2: rooms 0 and 2 by segment 0, room 1 by segment
 * 1), against one server with its database; merged, the inserts are the one-machine plan's
 * (every round's row of every room, once), every subscriber got every row of its room, and the
 * latency stands on the receipts on the inserting segment only. Two coordinators in this
 * process, one shared --start-at.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEV_JWT_SECRET } from '../../src/builtin/config.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { runBenchmark } from '../../src/run/runner.js';
import { readShard } from '../../src/shard/read.js';
import { mergeShards } from '../../src/shard/merge.js';
import { rebuildResult } from '../../src/shard/rebuild.js';
import { initialResult } from '../../src/run/run-result.js';
import { profileFrom } from '../support/profiles.js';
import { join } from 'node:path';
import { tempDir } from '../support/temp-dir.js';

let srv: RunningServer | null = null;
afterEach(async () => {
  await srv?.close();
  srv = null;
});

describe('segments share the inserts', () => {
  it('2 segments insert their own streams; merged = the one-machine plan, expected = received', async () => {
    srv = await startServer({ port: 0, log: () => undefined });
    const profile = profileFrom({
      name: 'cdc-segments',
      scenario: 'postgres-changes',
      target: {
        url: srv.url,
        database_url: srv.databaseConnectionString!,
        auth: { jwt_secret: DEV_JWT_SECRET },
      },
      // 3 rooms of 5 filtered subscribers, 6 rows/s for 2 s: 4 rounds of one row per room.
      load: {
        join_rate: 100,
        drain: '4s',
        steps: [{ connections: 15, rooms: 3, filtered: true, insert_rate: 6, duration: '2s' }],
      },
      slo: { p95_ms: 2000 },
    });
    const dir = tempDir('rtcap-seg-inserts-');
    const startAtMs = Date.now() + 8000;
    const outcomes = await Promise.all(
      [0, 1].map((index) =>
        runBenchmark({
          profile: structuredClone(profile),
          profilePath: null,
          redactedProfile: {},
          outDir: join(dir, `s${index}`),
          log: () => undefined,
          segment: { index, count: 2, run: 'cdc', startAtMs },
        }),
      ),
    );
    for (const o of outcomes) expect(o.exitCode).toBe(0);
    const shards = outcomes.map((o) => readShard(join(o.dir, 'shard.json')));
    // Segment 0 inserts rooms 0 and 2, segment 1 room 1: 8 and 4 rows.
    expect(shards.map((s) => s.steps[0].insertStats?.sent)).toEqual([8, 4]);
    expect(shards.map((s) => s.steps[0].inserts!.map((x) => x.stream % 100_000).sort())).toEqual([
      [0, 2],
      [1],
    ]);

    const merged = mergeShards(shards);
    const { result } = rebuildResult(merged, {
      initial: initialResult({
        runId: merged.identity.run,
        startedAt: new Date(),
        profile,
        profilePath: null,
        redactedProfile: {},
        builtin: false,
        serverCpus: null,
        generatorCpus: null,
      }),
      profile,
      builtin: false,
      targetUrl: srv.url,
      finishedAt: null,
    });
    const step = result.steps[0];
    expect(step.messages.sent).toBe(12);
    expect(step.messages.scheduled).toBe(12);
    expect(step.extra.subscribed).toBe(15);
    expect(step.messages.expected).toBe(4 * 15);
    expect(step.messages.received).toBe(step.messages.expected);
    expect(step.extra.inserts_failed).toBe(0);
    // A row's same-machine receivers: its room's subscribers in the inserting segment (c mod 2):
    // room 0 (segment 0): 0, 6, 12; room 1 (segment 1): 1, 7, 13; room 2 (segment 0): 2, 8, 14.
    const scope = step.extra.latency_scope as {
      receipts_same_machine: number;
      receipts_other_machine: number;
      messages_only_elsewhere: number;
    };
    expect(scope.receipts_same_machine).toBe(4 * 9);
    expect(scope.receipts_other_machine).toBe(4 * 6);
    expect(scope.messages_only_elsewhere).toBe(0);
  }, 120_000);
});
