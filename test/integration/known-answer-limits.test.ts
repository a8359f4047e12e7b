/**
 * Known answers for what stopped a sweep, each against a server whose limit is known:
 *
 * (a) the built-in server in this process admits at most N concurrent users and refuses the
 *     rest with its documented reason — the row is a server rejection quoting that reason,
 *     within the sweep's resolution below N;
 * (b) the built-in server started by `rtcap sweep` under `prlimit --nofile=K:K` cannot hold
 *     more than K files — the row is an environment limit, "server process open-file limit K",
 *     a lower bound, and the headline says what to do;
 * (c) one generator process whose every send costs it 5 ms of CPU (a test-only cost, so no
 *     machine keeps up past 200 sends/s) against a server that is never the limit — the row is
 *     generator-bound, naming the figure that tripped, a lower bound; a search whose first
 *     value is already generator-bound says so with that value and no number.
 * Everything listens on 127.0.0.1, port 0.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runArtifactHooks } from '../../src/artefacts/render.js';
import type { CapacityRow } from '../../src/model/capacity-row.js';
import { limitWords } from '../../src/model/limit.js';
import { headline } from '../../src/report/headline.js';
import type { RunResult } from '../../src/result/result.js';
import { runSweep } from '../../src/sweep/sweep.js';
import type { RunningServer } from '../../src/server/server.js';
import { DEV_JWT_SECRET } from '../../src/builtin/config.js';
import { serve } from '../server/helpers.js';
import { startTestServer, type TestServer } from '../support/phoenix-test-server.js';
import { profileFrom } from '../support/profiles.js';
import { tempDir } from '../support/temp-dir.js';

const quiet = () => undefined;
const BIN = resolve(__dirname, '../../bin/rtcap.js');

function rowOf(result: RunResult, id: string): CapacityRow {
  const rows = (result.analysis as { capacity: CapacityRow[] }).capacity;
  const row = rows.find((r) => r.id === id);
  if (!row) throw new Error(`no ${id} row`);
  return row;
}

describe('what stopped a sweep: the server said no', () => {
  const N = 60;
  let server: RunningServer;
  beforeAll(async () => {
    server = await serve({ config: { max_concurrent_users: N } });
  });
  afterAll(async () => {
    await server.close();
  });

  it(`names the server's rejection, quoted, within the resolution below ${N}`, async () => {
    const profile = profileFrom({
      name: 'limit-rejection',
      scenario: 'broadcast-public',
      target: { url: server.url, vsn: '2.0.0', auth: { jwt_secret: DEV_JWT_SECRET } },
      load: {
        join_rate: 1000,
        drain: '2s',
        settle: '300ms',
        steps: [{ connections: 40, send_rate: 5, duration: '1s' }],
      },
      // 40, 80 (refused), then 60, 70, 65: the knee within the resolution in five steps. The
      // refusal is what this test is about: steps of a few hundred samples are not lengthened
      // for first-receipt percentiles (min_samples 0).
      sweep: {
        driver: 'connections',
        start: 40,
        factor: 2,
        max: 200,
        stop_after_broken: 1,
        resolution: 0.1,
        min_samples: 0,
        // The built-in server counts a user out as its socket closes: the steps after a refused
        // one ramp once the old connections are closed (a user still counted would be refused
        // there and put the knee below the resolution).
        fresh_pause: '0s',
      },
      slo: { p95_ms: 5000 },
    });
    const dir = tempDir('rtcap-limit-a-');
    const { result } = await runSweep({
      profile,
      profilePath: null,
      redactedProfile: {},
      outDir: dir,
      log: quiet,
      ...runArtifactHooks(),
    });
    const row = rowOf(result, 'public_connections');
    expect(row.limit.kind).toBe('server-rejection');
    if (row.limit.kind !== 'server-rejection') return;
    expect(row.limit.reason).toMatch(
      /^(upgrade refused: HTTP 429|join refused: ).*Too many connected users/,
    );
    expect(row.bound).toBe('upper');
    expect(row.value).toBeGreaterThanOrEqual(N * 0.9);
    expect(row.value).toBeLessThanOrEqual(N);
    expect(limitWords(row.limit)).toMatch(
      /^server rejection: “.*Too many connected users.*” ×\d+$/,
    );
    expect(headline(result)).toContain(`what limited it: server rejection: “`);
    expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toContain('| server rejection: “');
  }, 120_000);
});

/** Runs `rtcap sweep` under a lowered open-file limit and returns its stdout and result. */
async function sweepUnderNofile(
  limit: number,
  profile: Record<string, unknown>,
): Promise<{ stdout: string; stderr: string; result: RunResult; dir: string }> {
  const dir = tempDir('rtcap-limit-b-');
  const file = join(dir, 'profile.yaml');
  writeFileSync(file, stringify(profile));
  const out = join(dir, 'run');
  const child = spawn(
    'prlimit',
    [`--nofile=${limit}:${limit}`, process.execPath, BIN, 'sweep', file, '--out', out],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((res) => child.on('exit', (c) => res(c)));
  if (code !== 0 && code !== 99)
    throw new Error(`rtcap sweep exited ${code}: ${stderr.slice(-2000)}`);
  return {
    stdout,
    stderr,
    result: JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as RunResult,
    dir: out,
  };
}

describe('what stopped a sweep: the server process ran out of files', () => {
  it('names the server process open-file limit K with its number, a lower bound, and what to do', async () => {
    const K = 400;
    const { stdout, stderr, result, dir } = await sweepUnderNofile(K, {
      name: 'limit-nofile',
      scenario: 'broadcast-public',
      target: {
        vsn: '2.0.0',
        topic: 'realtime:bench',
        server: { workers: 1, database: false },
        join_timeout: '5s',
      },
      load: {
        join_rate: 1000,
        warmup: '500ms',
        drain: '2s',
        settle: '300ms',
        steps: [{ connections: 200, send_rate: 1, duration: '2s' }],
      },
      // 200, 400 (out of files), then 300, 350, 375: the knee within the resolution in five
      // steps. The open-file limit is what this test is about: steps are not lengthened for
      // first-receipt percentiles (min_samples 0).
      sweep: {
        driver: 'connections',
        start: 200,
        factor: 2,
        max: 600,
        stop_after_broken: 1,
        resolution: 0.1,
        min_samples: 0,
        // The steps after the one out of files ramp once the server's open files stopped
        // falling, without a further pause (a file still held would put the knee below the
        // resolution).
        fresh_pause: '0s',
      },
      slo: { p95_ms: 5000 },
      generator: { max_event_loop_lag_p99_ms: 2000, max_cpu_pct: 100, min_offered_ratio: 0.9 },
    });
    const row = rowOf(result, 'public_connections');
    expect(row.limit).toMatchObject({
      kind: 'environment',
      resource: 'open files',
      process: 'server',
      limit: K,
      builtin: true,
    });
    expect(row.bound).toBe('lower');
    expect(row.display).toMatch(/^≥ \d+, environment limit above$/);
    // The server holds a few files besides its sockets (stdio, epoll, the listener, its log):
    // the knee sits that far below K, and within the resolution.
    expect(row.value).toBeLessThan(K);
    expect(row.value).toBeGreaterThanOrEqual(K * 0.9 - 60);
    const broken = result.steps.find((s) => s.index === row.knee.first_unsafe!.step)!;
    expect(broken.server.open_files).toMatchObject({ limit: K });
    expect(broken.server.open_files!.max).toBeGreaterThanOrEqual(K - 8);
    const words = 'environment limit: server process open-file limit 400';
    // The step names the limit first, in the row's words, not only "N connections failed".
    expect(broken.verdict_reasons.find((x) => !x.startsWith('incomplete'))).toBe(words);
    expect(stdout).toContain(`what stopped the measurement: ${words}`);
    // The live line names it too, as it happens: in the broken step, right after its phase.
    expect(stderr).toMatch(new RegExp(`^step ${broken.index} [^\\n]*· ${words} · joined `, 'm'));
    expect(stdout).toContain(
      "this is a lower bound on the server's own capacity (to measure further: raise `ulimit -n`",
    );
    expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toContain(
      `| ${words} — raise \`ulimit -n\` before the run, or run more server processes`,
    );
  }, 240_000);
});

describe('what stopped a sweep: a generator that cannot keep up', () => {
  // Every send costs the generator process 20 ms of CPU (RTCAP_TEST_SEND_COST_MS, read by each
  // generator process at its start): 0.4 s a second at 20 sends/s, 5 s a second at 250/s, which
  // no machine keeps up with: the pacer gives up on the sends past the step's deadline and the
  // step offers well under 90 % of its schedule. At 5 ms (1.25 s a second) a quiet machine
  // caught up in the drain and read the step stable, late sends and all. The server (the test
  // server, echo only) is never the limit.
  const COST_MS = 20;
  let server: TestServer;
  beforeAll(async () => {
    process.env.RTCAP_TEST_SEND_COST_MS = String(COST_MS);
    server = await startTestServer();
  });
  afterAll(async () => {
    delete process.env.RTCAP_TEST_SEND_COST_MS;
    await server.close();
  });

  const profile = (sweep: Record<string, unknown>) =>
    profileFrom({
      name: 'limit-generator',
      scenario: 'broadcast-public',
      target: { url: server.url },
      load: {
        workers: 1,
        join_rate: 1000,
        warmup: '500ms',
        drain: '1s',
        settle: '300ms',
        steps: [{ connections: 5, send_rate: 10, duration: '3s' }],
      },
      slo: { p95_ms: 10_000 },
      sweep: { generator_bound_retries: 1, min_samples: 0, ...sweep },
    });
  const sweepOf = async (p: ReturnType<typeof profile>) =>
    (
      await runSweep({
        profile: p,
        profilePath: null,
        redactedProfile: {},
        outDir: tempDir('rtcap-limit-c-'),
        log: quiet,
        ...runArtifactHooks(),
      })
    ).result;
  const said = (r: RunResult) =>
    r.steps
      .map((s) => `${s.params.send_rate}: ${s.verdict} ${s.verdict_reasons[0] ?? ''}`)
      .join('; ');

  it('names the generator figure that tripped, a lower bound above the last stable step', async () => {
    const result = await sweepOf(profile({ driver: 'send_rate', values: [10, 20, 250] }));
    expect(
      result.steps.map((s) => s.verdict),
      said(result),
    ).toEqual(['stable', 'stable', 'generator-bound']); // an explicit list runs each value once
    const row = rowOf(result, 'public_deliveries');
    expect(row, said(result)).toMatchObject({
      bound: 'lower',
      limit: { kind: 'generator-bound' },
    });
    // The last stable step: 20 sends/s to 4 receivers, 80 deliveries/s asked, as measured (by
    // receive time: sends held up by their cost arrive a little bunched, so within ±10 %).
    expect(row.value!).toBeGreaterThanOrEqual(72);
    expect(row.value!).toBeLessThanOrEqual(88);
    expect(row.display).toBe(`≥ ${row.value}/s, generator-bound above`);
    if (row.limit.kind !== 'generator-bound') return;
    // Behind its schedule: its event loop blocked past the limit, or less than 90 % offered.
    expect(['event-loop lag p99', 'offered'], said(result)).toContain(row.limit.figure);
    if (row.limit.figure === 'offered') expect(row.limit.value!).toBeLessThan(0.9);
    else expect(row.limit.value!).toBeGreaterThan(row.limit.limit!);
    expect(limitWords(row.limit)).toMatch(/^generator-bound: (generator event-loop lag|offered)/);
    expect(headline(result)).toMatch(/was generator-bound: .*, so this is a lower bound\.$/);
  }, 120_000);

  it('a search whose first value is generator-bound says so with that value, and no number', async () => {
    const result = await sweepOf(profile({ driver: 'send_rate', start: 250, max: 500 }));
    expect(
      result.steps.map((s) => s.verdict),
      said(result),
    ).toEqual(['generator-bound', 'generator-bound']);
    const row = rowOf(result, 'public_deliveries');
    expect(row, said(result)).toMatchObject({
      value: null,
      bound: 'lower',
      display: '— generator-bound at the first value, send_rate 250',
      limit: { kind: 'generator-bound' },
    });
    expect((result.analysis as { capacity: CapacityRow[] }).capacity).toHaveLength(1);
  }, 120_000);
});
