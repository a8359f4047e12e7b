/**
 * rtcap against a real Supabase Realtime started by hand (test/real/servers.test.ts runs this when
 * RTCAP_REALTIME_URL is set). It drives the real command line as a user would:
 *
 * - `rtcap init URL --kind realtime`, then `rtcap run` of the profile it wrote (steps shortened to
 *   a few seconds): every step stable, everything delivered;
 * - presence and Postgres Changes deliver 100 % (the loader's table is created in the tenant's
 *   database first, as docs/YOUR-SERVER.md asks of a self-hosted Realtime);
 * - a deliveries/s search (100 members of one topic, send_rate doubling) brackets a knee, and its
 *   upper bracket, run again alone after a rest, is again not stable: the search was not fooled
 *   by a backlog the server was still working off.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { RunResult } from '../../src/result/result.js';
import type { SweepRecord } from '../../src/sweep/record.js';
import { sleep } from '../../src/util/sleep.js';
import {
  ensureBenchTable,
  holdTenant,
  lastLines,
  logCli,
  readResult,
  stepLine,
  type RealtimeEnv,
} from '../support/real-servers.js';
import { rtcapCli } from '../support/rtcap-process.js';
import { tempDir } from '../support/temp-dir.js';

const MIN = 60_000;
/** Each step's steady state: a few hundred samples, yet every run stays short. */
const STEP = '5s';
/** Between the search and the re-run of its upper bracket: the server's backlog drains. */
const REST_MS = 20_000;

/** The target block of the suite's own profiles: vsn 1.0.0 JSON frames, minted anon tokens. */
function target(env: RealtimeEnv, topic: string): string {
  return `target:
  url: ${env.url}
  dialect: supabase
  vsn: "1.0.0"
  host: ${env.host}
  topic: ${topic}
  auth:
    jwt_secret: "\${RTCAP_REALTIME_JWT_SECRET}"
    role: anon
  database_url: "\${RTCAP_REALTIME_DB_URL}"
  join_timeout: 15s
`;
}

/** One-step runs that must deliver everything they send: presence and Postgres Changes. */
const DELIVER_ALL = [
  {
    title: 'presence delivers every diff to every member',
    scenario: 'presence',
    lines: '',
    step: `{ connections: 100, members: 10, update_share: 0.2, duration: ${STEP} }`,
  },
  {
    title: 'Postgres Changes delivers every inserted row to every subscriber',
    scenario: 'postgres-changes',
    // The loader's default table, created in the tenant's database by ensureBenchTable.
    lines: 'changes: { schema: public, table: bench_messages, event: INSERT }\n',
    step: `{ connections: 50, insert_rate: 2, duration: ${STEP} }`,
  },
];

function write(dir: string, name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

/** `rtcap run PROFILE --out DIR [extra]`, logged, its result.json read back. */
async function run(
  what: string,
  profile: string,
  out: string,
  extra: string[] = [],
  env: Record<string, string> = {},
): Promise<{ code: number | null; result: RunResult }> {
  const args = ['run', profile, '--out', out, '--no-progress', ...extra];
  const r = await rtcapCli(args, { env, timeoutMs: 6 * MIN });
  logCli(what, args, r);
  expect(r.code, `rtcap run exited ${r.code}: ${lastLines(r.stderr, 5)}`).toBe(0);
  const result = readResult(out);
  for (const s of result.steps) console.log(stepLine(s));
  return { code: r.code, result };
}

function deliveredAll(result: RunResult): void {
  expect(result.steps.length).toBeGreaterThan(0);
  for (const s of result.steps) {
    expect(s.messages.expected, `step ${s.index} expected`).toBeGreaterThan(0);
    expect(s.messages.received, `step ${s.index} received`).toBe(s.messages.expected);
    expect(s.messages.lost, `step ${s.index} lost`).toBe(0);
    expect(s.connections.joined, `step ${s.index} joined`).toBe(s.connections.target);
  }
}

export function realtimeSuite(env: RealtimeEnv): void {
  describe(`Supabase Realtime at ${env.url} (tenant ${env.host})`, () => {
    let dir = '';
    let release = () => {};
    beforeAll(async () => {
      dir = tempDir('rtcap-real-realtime-');
      await ensureBenchTable(env.dbUrl);
      release = await holdTenant(env);
    });
    afterAll(() => release());

    it(
      'rtcap init writes a profile whose every step runs stable',
      async () => {
        const profile = join(dir, 'init.yaml');
        const cliEnv = { REALTIME_JWT_SECRET: env.jwtSecret };
        const initArgs = ['init', env.url, '--kind', 'realtime', '--out', profile];
        const init = await rtcapCli(initArgs, { env: cliEnv, timeoutMs: 2 * MIN });
        logCli('rtcap init (as written, then each step shortened)', initArgs, init);
        expect(init.code).toBe(0);
        console.log(readFileSync(profile, 'utf8'));
        const steps = (parse(readFileSync(profile, 'utf8')) as { load: { steps: unknown[] } }).load
          .steps.length;
        const shorten = Array.from({ length: steps }, (_, i) => [
          '--set',
          `load.steps.${i}.duration=${STEP}`,
        ]).flat();
        const { code, result } = await run(
          'rtcap run of the profile init wrote',
          profile,
          join(dir, 'init-run'),
          ['--set', `target.host=${env.host}`, ...shorten],
          cliEnv,
        );
        expect(code).toBe(0);
        expect(result.status).toBe('completed');
        expect(result.steps.map((s) => `${s.index}: ${s.verdict}`)).toEqual(
          result.steps.map((s) => `${s.index}: stable`),
        );
        deliveredAll(result);
        // No metrics token: the server's CPU comes from the process listening on the URL's port.
        expect(result.steps[0].server.cpu_pct).not.toBeNull();
      },
      9 * MIN,
    );

    for (const c of DELIVER_ALL) {
      it(
        c.title,
        async () => {
          const profile = write(
            dir,
            `${c.scenario}.yaml`,
            `name: real-${c.scenario}
scenario: ${c.scenario}
${target(env, `realtime:${c.scenario}`)}${c.lines}load:
  join_rate: 100
  drain: 10s
  steps:
    - ${c.step}
slo: { p95_ms: 1000 }
`,
          );
          const { result } = await run(c.scenario, profile, join(dir, c.scenario));
          deliveredAll(result);
          expect(result.steps[0].delivery_rate).toBe(1);
        },
        6 * MIN,
      );
    }

    it(
      "a deliveries/s search's upper bracket, run again alone after a rest, is not stable",
      async () => {
        const load = (sendRate: number) => `load:
  join_rate: 100
  workers: 2
  warmup: 1s
  drain: 5s
  steps:
    - { connections: 100, send_rate: ${sendRate}, duration: 4s }
slo: { p95_ms: 200 }
generator:
  # Each broadcast reaches a generator process as a burst of 50 frames; on a shared 2-core
  # machine that alone lags its event loop past the default 50 ms. Falling behind is still caught
  # by the offered-load ratio and generator CPU checks.
  max_event_loop_lag_p99_ms: 150
`;
        const search = write(
          dir,
          'search.yaml',
          `name: real-search
scenario: broadcast-public
${target(env, 'realtime:search')}${load(25)}sweep:
  driver: send_rate
  start: 25
  factor: 2
  max: 1600
  max_steps: 10
  min_samples: 200
  max_duration: 8s
  budget: 5m
`,
        );
        const args = ['sweep', search, '--out', join(dir, 'search'), '--no-progress'];
        const swept = await rtcapCli(args, { timeoutMs: 9 * MIN });
        logCli('deliveries/s search (100 members of one topic)', args, swept);
        expect(swept.code, lastLines(swept.stderr, 5)).toBe(0);
        const result = readResult(join(dir, 'search')) as RunResult & { sweep?: SweepRecord };
        for (const s of result.steps) console.log(stepLine(s));
        const knee = result.sweep?.knee;
        console.log(`knee: ${JSON.stringify(knee)}; stopped: ${result.sweep?.stop_reason}`);
        const upper = knee?.first_unsafe ?? knee?.first_broken ?? null;
        expect(knee?.last_stable, 'the search found a stable step').toBeTruthy();
        expect(upper, 'the search found a step that was not stable').toBeTruthy();

        await sleep(REST_MS);
        const again = write(
          dir,
          'upper.yaml',
          `name: real-upper-bracket
scenario: broadcast-public
${target(env, 'realtime:search')}${load(upper!.value)}`,
        );
        const { result: alone } = await run(
          `the upper bracket (send_rate ${upper!.value}) alone, after ${REST_MS / 1000} s`,
          again,
          join(dir, 'upper'),
        );
        expect(alone.steps).toHaveLength(1);
        expect(['degraded', 'broken']).toContain(alone.steps[0].verdict);
      },
      13 * MIN,
    );
  });
}
