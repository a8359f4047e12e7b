/**
 * Known answers of the recovery probe's paths. The probe must exercise the path the search
 * loads: a server can fan out broadcasts again while its change pipeline is dead.
 *
 * The server: rtcap's built-in one, whose bench table gets a trigger that takes the table out of
 * the `supabase_realtime` publication the moment more than R = 150 rows were inserted within one
 * second. From then on no change of that table ever reaches a subscriber, while broadcasts still
 * do: the change path dies above R rows/s and never comes back. A search over insert_rate
 * (10, 40, 160/s, ten subscribers) must read 10 and 40 stable, 160 broken, then see its probe's
 * inserts go unanswered for the whole bounded wait, stop there, and read the row as the last
 * stable step, limited by the change pipeline not recovering after 160/s — not "delivery 0 %"
 * of steps measured against a dead pipeline.
 */
import { rmSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeRun } from '../../src/model/analysis.js';
import { limitWords } from '../../src/model/limit.js';
import { probePathOf } from '../../src/recovery/paths.js';
import { probeOnce, waitForRecovery } from '../../src/recovery/probe.js';
import { recoverySchema } from '../../src/profile/schema/sweep.js';
import { TokenSource } from '../../src/client/auth.js';
import { DEV_JWT_SECRET } from '../../src/builtin/config.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { runTestSweep } from '../support/test-sweep.js';
import { profileFrom } from '../support/profiles.js';
import { startTestServer, type TestServer } from '../support/phoenix-test-server.js';
import { tempDir } from '../support/temp-dir.js';

const R = 150;
let srv: RunningServer;
const dirs: string[] = [];
beforeAll(async () => {
  srv = await startServer({ port: 0, log: () => undefined });
});
afterAll(async () => {
  await srv?.close();
  if (!process.env.SWEEP_DEBUG) for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function sql(text: string): Promise<void> {
  const c = new pg.Client({ connectionString: srv.databaseConnectionString! });
  await c.connect();
  try {
    await c.query(text);
  } finally {
    await c.end();
  }
}

/** Above R rows within a second the table leaves the publication: no change of it is sent. */
const DIE_ABOVE_R = `
create function bench_die_above() returns trigger language plpgsql as $$
begin
  if (select count(*) from public.bench_messages
      where created_at > clock_timestamp() - interval '1 second') > ${R} then
    begin
      execute 'alter publication supabase_realtime drop table public.bench_messages';
    exception when others then null; -- another row took it out first
    end;
  end if;
  return new;
end $$;
create trigger bench_die_above after insert on public.bench_messages
  for each row execute function bench_die_above();`;

function changesProfile(url: string) {
  return profileFrom({
    name: 'ka-recovery-changes',
    scenario: 'postgres-changes',
    target: {
      url,
      database_url: srv.databaseConnectionString,
      auth: { jwt_secret: DEV_JWT_SECRET },
      join_timeout: '10s',
    },
    changes: { table: 'bench_messages', claims: { rooms: '*' } },
    load: {
      join_rate: 100,
      warmup: '500ms',
      // Long enough for the poller's latency on a loaded machine: a row late is not lost.
      drain: '6s',
      settle: '300ms',
      steps: [{ connections: 10, insert_rate: 10, duration: '3s' }],
    },
    // The subject is the pipeline's death, not latency: the built-in poller's idle waits put
    // p95 near 0.6 s, and over 1 s on a loaded machine.
    slo: { p95_ms: 3000 },
    sweep: {
      driver: 'insert_rate',
      start: 10,
      max: 640,
      factor: 4,
      stop_after_broken: 1,
      min_samples: 0,
      // The idle poller answers in up to ~0.6 s: the margin keeps that jitter from reading as
      // "still recovering"; the wait is short so the test is.
      recovery: { messages: 2, max_wait: '8s', latency_margin_ms: 1500 },
    },
  });
}

describe('the recovery probe exercises the path the search loads', () => {
  it('a change pipeline that dies above R rows/s: the search stops there and the row says so', async () => {
    await sql(DIE_ABOVE_R);
    const dir = tempDir('rtcap-ka-recovery-');
    dirs.push(dir);
    const { result, sweep, verdicts } = await runTestSweep(
      changesProfile(srv.url),
      dir,
      (s) => s.params.insert_rate,
    );
    expect(result.abort_reason ?? null, verdicts).toBeNull();
    expect(
      result.steps.map((s) => [s.params.insert_rate, s.verdict]),
      verdicts,
    ).toEqual([
      [10, 'stable'],
      [40, 'stable'],
      [160, 'broken'],
    ]);
    // The probe before step 2 went through the change path and found it as at the baseline.
    expect(sweep.points[1].recovery).toMatchObject({ path: 'postgres-changes', recovered: true });
    expect(sweep.points[1].recovery!.probes.at(-1)!.received).toBe(2);
    expect(sweep.stop_kind, sweep.stop_reason ?? '').toBe('not-recovered');
    expect(sweep.stop_reason).toMatch(
      /^change pipeline did not recover after insert_rate 160 \(step 3\): (no change event of the probe’s inserts arrived|the probe’s subscription was not confirmed within 10 s), probed for \d+\.\d s \(sweep.recovery.max_wait\); the search stopped there$/,
    );
    expect(sweep.not_recovered).toMatchObject({ after_step: 3, path: 'postgres-changes' });
    expect(sweep.not_recovered!.recovery.probes.every((p) => p.received === 0)).toBe(true);

    const row = analyzeRun(result).capacity.find((r) => r.id === 'cdc_changes')!;
    expect(row.bound, row.evidence).toBe('upper');
    expect(row.evidence_steps).toContain(2);
    expect(row.value!).toBeGreaterThan(30);
    expect(row.value!).toBeLessThanOrEqual(45);
    expect(row.limit).toMatchObject({ kind: 'no-recovery', after: 'insert_rate 160' });
    expect(limitWords(row.limit)).toMatch(
      /^change pipeline did not recover after insert_rate 160 \(within \d+ s\)$/,
    );
  }, 180_000);

  it('a presence probe tracks and times the diff of each track', async () => {
    const server: TestServer = await startTestServer();
    try {
      const profile = profileFrom({
        name: 'ka-recovery-presence',
        scenario: 'presence',
        target: { url: server.url },
        load: { steps: [{ rooms: 1, members: 2, connections: 2, duration: '1s' }] },
      });
      const path = probePathOf(profile, null);
      expect(path).toEqual({ kind: 'presence' });
      const sample = await probeOnce(
        {
          socketUrl: `${server.url}?vsn=1.0.0`,
          headers: {},
          vsn: '1.0.0',
          tokens: { role: 'anon', ttlMs: 60_000, apikeyIn: 'query' },
          joinTimeoutMs: 5_000,
          path,
        },
        4,
        new TokenSource({ role: 'anon', ttlMs: 60_000 }),
      );
      expect(sample).toMatchObject({ sent: 4, received: 4, error: null });
      expect(server.stats.presenceUpdates).toBe(3);
    } finally {
      await server.close();
    }
  });

  it('a join-rate search probes with the private join it measures: RLS-checked joins, and a refusal is no round trip', async () => {
    const profile = profileFrom({
      name: 'ka-recovery-join',
      scenario: 'join-rate',
      target: { url: srv.url, auth: { jwt_secret: DEV_JWT_SECRET } },
      load: { steps: [{ connections: 5, join_rate: 5, duration: '1s' }] },
    });
    const path = probePathOf(profile, null);
    expect(path).toMatchObject({ kind: 'join', topicPrefix: 'realtime:room-rtcap-probe-' });
    const target = (url: string) => ({
      socketUrl: `${url}?vsn=1.0.0`,
      headers: {},
      vsn: '1.0.0' as const,
      tokens: {
        jwtSecret: DEV_JWT_SECRET,
        role: 'anon',
        ttlMs: 60_000,
        apikeyIn: 'query' as const,
      },
      joinTimeoutMs: 5_000,
      path,
    });
    const cfg = recoverySchema.parse({ messages: 3, max_wait: '1s' });
    const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
    const ok = await waitForRecovery({ target: target(srv.url), cfg, baseline: null, sleep });
    expect(ok).toMatchObject({ path: 'join', recovered: true });
    expect(ok.probes.at(-1)).toMatchObject({ sent: 3, received: 3, error: null });
    // A server that admits the probe's own (public) join and refuses every join after it, as a
    // tripped authorisation pool does: nothing comes back, the path is down.
    const refusing = await startTestServer({
      refuseJoinsAfter: { joins: 1, reason: 'IncreaseConnectionPool' },
    });
    try {
      const down = await waitForRecovery({
        target: target(refusing.url),
        cfg,
        baseline: null,
        sleep,
      });
      expect(down).toMatchObject({ recovered: false, path_down: true });
      expect(down.probes.every((p) => p.received === 0)).toBe(true);
      expect(down.note).toMatch(
        /^join path did not recover: no private join of the probe was answered ok/,
      );
    } finally {
      await refusing.close();
    }
  });
});
