/**
 * Steps that end early say so truly and keep what they measured: the built CLI in its own
 * process against servers whose counts are known.
 *
 * - SIGINT while the ramp stalls (a test server that answers 20 joins and holds the rest): exit
 *   130, result.json with one incomplete step cut short by SIGINT in the ramp, holding exactly the
 *   20 joins the server made, no failure, inconclusive (never stable nor broken).
 * - SIGINT in the steady window: cut short by SIGINT, judged over the part of its schedule that
 *   ran (offered 100 %, nothing lost), never generator-bound.
 * - `rtcap serve` killed with SIGKILL mid-step, no load.reconnect: exit 3, the step broken and cut
 *   short by the server going away, the closing sentence saying so, never generator-bound nor
 *   "closed by server: 1006".
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/result/result.js';
import type { CapacityRow } from '../../src/model/capacity-row.js';
import { DEV_JWT_SECRET } from '../../src/builtin/config.js';
import { BIN, startServeProcess } from '../support/rtcap-process.js';
import { startTestServerProcess, type TestServerProcess } from '../support/test-server-process.js';
import { tempDir } from '../support/temp-dir.js';

const work = tempDir('rtcap-cut-short-');
let server: TestServerProcess | null = null;
let serve: ChildProcess | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
  serve?.kill('SIGKILL');
  serve = null;
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The CLI's `run` in its own process; its stderr, and a way to wait on it and signal it. */
function runCli(name: string, yaml: string[]) {
  const profile = join(work, `${name}.yaml`);
  writeFileSync(profile, yaml.join('\n') + '\n');
  const out = join(work, name);
  const child = spawn(process.execPath, [BIN, 'run', profile, '--workers', '1', '--out', out], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return {
    child,
    exited,
    stderr: () => stderr,
    /** The terminal summary, which ends with the closing sentence (report/headline). */
    stdout: () => stdout,
    result: () => JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as RunResult,
    summary: () => readFileSync(join(out, 'summary.md'), 'utf8'),
  };
}

/**
 * The generator's lag and CPU limits loosened (this machine is shared by parallel suites); its
 * offered ratio keeps the default 99 %, which is what a cut must not fail.
 */
const LENIENT = 'generator: { max_event_loop_lag_p99_ms: 5000, max_cpu_pct: 100 }';

/** Polls `ok` every 200 ms, for `ms` at most. */
async function until(ok: () => boolean | Promise<boolean>, ms: number, what: string) {
  for (const end = Date.now() + ms; Date.now() < end;) {
    if (await ok()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('a step cut short', () => {
  it('SIGINT while the ramp stalls: exit 130, one incomplete step with the joins the server made', async () => {
    server = await startTestServerProcess({ holdJoinsAfter: 20 });
    const s = server;
    const run = runCli('ramp', [
      'name: ramp-cut',
      'scenario: broadcast-public',
      `target: { url: "${s.url}", vsn: "2.0.0", join_timeout: 60s }`,
      LENIENT,
      'load:',
      '  join_rate: 30',
      '  warmup: 0s',
      '  steps: [{ connections: 60, send_rate: 5, duration: 10s }]',
    ]);
    // Every join made: 20 answered, 40 held.
    await until(async () => (await s.stats()).joinsHeld === 40, 60_000, 'the ramp to stall');
    const stats = await s.stats();
    run.child.kill('SIGINT');
    const code = await run.exited;
    expect(code, run.stderr()).toBe(130);
    const r = run.result();
    expect(r.status).toBe('interrupted');
    expect(r.abort_reason).toBe('interrupted by the user (SIGINT)');
    expect(r.steps).toHaveLength(1);
    const step = r.steps[0];
    expect(step.complete).toBe(false);
    expect(step.cut_short).toMatchObject({ by: 'SIGINT', phase: 'ramp', collected: true });
    expect(stats.joins).toBe(20);
    expect(step.connections.joined).toBe(stats.joins);
    expect(step.connections.failed).toBe(0);
    expect(step.connections.join_latency_ms.count).toBe(20);
    expect(step.verdict, step.verdict_reasons.join('; ')).toBe('inconclusive');
    expect(step.verdict_reasons.slice(0, 2)).toEqual([
      'incomplete (cut short by SIGINT in the ramp): figures cover only what ran',
      'not measured at its load: 20 of 60 connections joined before the cut, 40 open and not answered yet',
    ]);
    expect(run.summary()).toContain('Step 1 is incomplete (cut short by SIGINT in the ramp)');
    expect(run.stdout()).toMatch(
      /No step ran to its end: step 1 \(60 connections[^)]*\) was cut short by SIGINT in the ramp \(inconclusive over the part that ran: not measured at its load: 20 of 60 connections joined before the cut, 40 open and not answered yet\)/,
    );
  }, 180_000);

  it('SIGTERM in a ramp the server answers slower than offered: inconclusive, the record names SIGTERM', async () => {
    // Joins answered at 10/s while 100/s are offered: the measured join rate is far below it.
    server = await startTestServerProcess({ joinsPerS: 10 });
    const s = server;
    const run = runCli('term', [
      'name: term-cut',
      'scenario: broadcast-public',
      `target: { url: "${s.url}", vsn: "1.0.0", join_timeout: 60s }`,
      LENIENT,
      'load:',
      '  join_rate: 100',
      '  warmup: 0s',
      '  steps: [{ connections: 200, send_rate: 5, duration: 10s }]',
    ]);
    await until(async () => (await s.stats()).joins >= 30, 60_000, '30 joins answered');
    run.child.kill('SIGTERM');
    expect(await run.exited, run.stderr()).toBe(143);
    const r = run.result();
    expect(r.status).toBe('interrupted');
    expect(r.abort_reason).toBe('terminated by SIGTERM');
    const step = r.steps[0];
    expect(step.cut_short).toMatchObject({ by: 'SIGTERM', phase: 'ramp' });
    expect(step.connections.failed).toBe(0);
    // Nothing failed: never degraded for "fell behind the join schedule" over a cut ramp.
    expect(step.verdict, step.verdict_reasons.join('; ')).toBe('inconclusive');
    expect(step.verdict_reasons[0]).toBe(
      'incomplete (cut short by SIGTERM in the ramp): figures cover only what ran',
    );
    expect(step.verdict_reasons[1]).toMatch(/^not measured at its load: \d+ of 200 connections/);
    expect(step.verdict_reasons.slice(2).every((x) => x.startsWith('also: '))).toBe(true);
    expect(run.stdout()).toMatch(
      /was cut short by SIGTERM in the ramp \(inconclusive over the part that ran/,
    );
    expect(`${run.stdout()}\n${run.summary()}`).not.toMatch(/interrupted by the user/);
  }, 180_000);

  it('SIGINT in the steady window: cut short by SIGINT, never generator-bound', async () => {
    server = await startTestServerProcess();
    const s = server;
    const run = runCli('steady', [
      'name: steady-cut',
      'scenario: broadcast-public',
      `target: { url: "${s.url}", vsn: "2.0.0" }`,
      LENIENT,
      'load:',
      '  join_rate: 100',
      '  warmup: 0s',
      '  steps: [{ connections: 10, send_rate: 10, duration: 20s }]',
    ]);
    // Three seconds of the twenty sent.
    await until(async () => (await s.stats()).pushes >= 30, 60_000, 'three seconds of sends');
    run.child.kill('SIGINT');
    expect(await run.exited, run.stderr()).toBe(130);
    const step = run.result().steps[0];
    expect(step.complete).toBe(false);
    expect(step.cut_short).toMatchObject({ by: 'SIGINT', phase: 'steady' });
    expect(step.verdict, step.verdict_reasons.join('; ')).toBe('stable');
    expect(step.verdict_reasons[0]).toBe(
      'incomplete (cut short by SIGINT in the steady window): figures cover only what ran',
    );
    expect(step.verdict_reasons.some((x) => /offered/.test(x))).toBe(false);
    expect(step.generator.offered_ratio).toBeGreaterThanOrEqual(0.99);
    expect(step.messages.sent).toBeGreaterThan(0);
    expect(step.messages.lost).toBe(0);
    expect(step.messages.received).toBe(step.messages.expected);
    expect(run.summary()).toContain(
      'Step 1 is incomplete (cut short by SIGINT in the steady window)',
    );
    expect(run.summary()).not.toMatch(/generator-bound \(/);
    expect(run.stdout()).toMatch(
      /No step ran to its end: step 1 \(10 connections, [\d,]+ deliveries\/s asked\) was cut short by SIGINT in the steady window \(stable over the part that ran: delivery 100%/,
    );
    expect(run.stdout()).not.toMatch(/(is|was|already) generator-bound/);
  }, 180_000);

  it('rtcap serve killed with SIGKILL mid-step, no reconnect: broken, the server went away', async () => {
    const started = await startServeProcess();
    serve = started.child;
    const run = runCli('killed', [
      'name: killed',
      'scenario: broadcast-public',
      `target: { url: "ws://127.0.0.1:${started.port}/socket/websocket", auth: { jwt_secret: ${DEV_JWT_SECRET} } }`,
      LENIENT,
      // Step 1 stable on a busy shared machine: what it carried is the run's answer.
      'slo: { p95_ms: 5000, join_p95_ms: 20000 }',
      'load:',
      '  join_rate: 100',
      '  drain: 2s',
      '  steps:',
      '    - { connections: 20, send_rate: 5, duration: 3s }',
      '    - { connections: 20, send_rate: 5, duration: 8s }',
    ]);
    await until(() => /step 2\/2/.test(run.stderr()), 150_000, 'step 2');
    await new Promise((r) => setTimeout(r, 2_000));
    started.child.kill('SIGKILL');
    expect(await run.exited, run.stderr()).toBe(3);
    const gone = 'the server went away: all 20 connections were lost without a close frame (1006)';
    expect(run.stderr()).toContain(`run aborted: ${gone}`);
    const r = run.result();
    expect(r.abort_reason).toBe(gone);
    expect(r.steps).toHaveLength(2);
    const step = r.steps[1];
    expect(step.verdict).toBe('broken');
    expect(step.cut_short).toMatchObject({ by: gone, collected: true });
    expect(step.verdict_reasons[0]).toMatch(
      /^incomplete \(cut short in the (steady window|drain): /,
    );
    expect(step.verdict_reasons[1]).toBe(
      'the server went away: 20 of 20 connections dropped without a close frame (1006)',
    );
    expect(
      step.verdict_reasons
        .filter((x) => /offered|lag/.test(x))
        .every((x) => x.startsWith('also: ')),
    ).toBe(true);
    // The closing sentence (the terminal summary's last line) names the server going away.
    const closing = run.stdout().trim().split('\n').pop()!;
    expect(closing).toContain(
      'the server went away: 20 of 20 connections dropped without a close frame (1006)',
    );
    expect(closing).toMatch(/step 2 \(20 connections/);
    // The stable step before the kill stands, a lower bound: the server's death is no limit of
    // its load, in the closing sentence or in any capacity row.
    expect(r.steps[0].verdict, r.steps[0].verdict_reasons.join('; ')).toBe('stable');
    expect(closing).toMatch(
      /^The server carried ≥ [\d,]+ deliveries\/s to ≥ 20 connections within the SLO \(.*step 1: p95 [^)]*\); then, in step 2 \(20 connections[^)]*\), the server went away: 20 of 20 connections dropped without a close frame \(1006\), so no limit was measured and this is a lower bound\.$/,
    );
    const analysis = r.analysis as { capacity?: CapacityRow[] } | undefined;
    const rows = analysis?.capacity ?? [];
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.limit, row.display).toEqual({ kind: 'server-gone', step: 2 });
      expect(row.bound).toBe('lower');
    }
    for (const text of [run.stdout(), run.summary()]) {
      expect(text).not.toMatch(/closed by server: 1006/);
      expect(text).not.toMatch(/(is|was|already) generator-bound/);
    }
    expect(run.summary()).toContain(
      `Step 2 is incomplete (cut short in the steady window: ${gone})`,
    );
  }, 240_000);
});
