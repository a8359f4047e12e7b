/**
 * Known answers for what stopped a sweep, each against a server whose limit is known:
 *
 * (a) the built-in server in this process admits at most N concurrent users and refuses the
 *     rest with its documented reason — the row is a server rejection quoting that reason,
 *     within the sweep's resolution below N;
 * (b) the built-in server started by `rtcap sweep` under `prlimit --nofile=K:K` cannot hold
 *     more than K files — the row is an environment limit, "server process open-file limit K",
 *     a lower bound, and the headline says what to do;
 * (c) one generator process pinned to one core against a server that is never the limit
 *     (one message a second): a broadcast to thousands of members blocks the generator's event
 *     loop past its limit — the row is generator-bound, naming the lag and its figure, a lower
 *     bound.
 * Everything listens on 127.0.0.1, port 0.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runArtifactHooks } from '../../src/cli/render.js';
import type { CapacityRow } from '../../src/model/capacity.js';
import { limitWords } from '../../src/model/limit.js';
import { headline } from '../../src/report/headline.js';
import type { RunResult } from '../../src/result/result.js';
import { runSweep } from '../../src/run/sweep.js';
import type { RunningServer } from '../../src/server/server.js';
import { DEV_JWT_SECRET } from '../../src/server/options.js';
import { serve } from '../server/helpers.js';
import { profileFrom } from '../support/profiles.js';

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
        steps: [{ connections: 20, send_rate: 5, duration: '1s' }],
      },
      sweep: {
        driver: 'connections',
        start: 20,
        factor: 2,
        max: 200,
        stop_after_broken: 1,
        resolution: 0.1,
      },
      slo: { p95_ms: 5000 },
    });
    const dir = mkdtempSync(join(tmpdir(), 'rtcap-limit-a-'));
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
  });
});

/** Runs `rtcap sweep` under a lowered open-file limit and returns its stdout and result. */
async function sweepUnderNofile(
  limit: number,
  profile: Record<string, unknown>,
): Promise<{ stdout: string; result: RunResult; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'rtcap-limit-b-'));
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
    result: JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as RunResult,
    dir: out,
  };
}

describe('what stopped a sweep: the server process ran out of files', () => {
  it('names the server process open-file limit K with its number, a lower bound, and what to do', async () => {
    const K = 400;
    const { stdout, result, dir } = await sweepUnderNofile(K, {
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
        steps: [{ connections: 100, send_rate: 1, duration: '2s' }],
      },
      sweep: {
        driver: 'connections',
        start: 100,
        factor: 2,
        max: 600,
        stop_after_broken: 1,
        resolution: 0.1,
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
    expect(stdout).toContain(`what stopped the measurement: ${words}`);
    expect(stdout).toContain(
      "this is a lower bound on the server's own capacity (to measure further: raise `ulimit -n`",
    );
    expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toContain(
      `| ${words} — raise \`ulimit -n\` before the run, or run more server processes`,
    );
  }, 240_000);
});
