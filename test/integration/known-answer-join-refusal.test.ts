/**
 * Known answer of a search against a server that admits N = 60 joins and refuses every one
 * after them with an error reply ("too many joins"). A connections search of 20, 40, 80 reads
 * 20 and 40 stable and 80 broken (20 joined, 20 refused); the bisection's 60 starts from fresh
 * connections (the last step's failed), every one refused. That step is measured — broken,
 * the server's reply quoted — not an aborted run ("no connection could join"), and the search
 * ends there with the rejection, the row at the last stable step. (No recovery probe: its
 * joins would count against the server's N.)
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeRun } from '../../src/model/analysis.js';
import { limitWords } from '../../src/model/limit.js';
import { runTestSweep } from '../support/test-sweep.js';
import { profileFrom } from '../support/profiles.js';
import { startTestServer, type TestServer } from '../support/phoenix-test-server.js';
import { tempDir } from '../support/temp-dir.js';

const N = 60;
let server: TestServer;
let dir: string;
beforeAll(async () => {
  server = await startTestServer({ refuseJoinsAfter: { joins: N, reason: 'too many joins' } });
  dir = tempDir('rtcap-ka-join-refusal-');
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a search against a server that refuses every join after the first N', () => {
  it('measures the refused step as broken with the reply quoted and stops there', async () => {
    const profile = profileFrom({
      name: 'ka-join-refusal',
      scenario: 'broadcast-public',
      target: { url: server.url, join_timeout: '20s' },
      load: {
        join_rate: 200,
        warmup: '300ms',
        drain: '1s',
        settle: '200ms',
        steps: [{ connections: 20, send_rate: 2, duration: '1s' }],
      },
      sweep: {
        driver: 'connections',
        start: 20,
        max: 640,
        factor: 2,
        stop_after_broken: 1,
        min_samples: 0,
        recovery: { probe: false },
      },
    });
    const { result, sweep, exitCode, verdicts } = await runTestSweep(
      profile,
      dir,
      (s) => s.params.connections,
    );
    expect(result.abort_reason ?? null, verdicts).toBeNull();
    expect(exitCode, verdicts).toBe(0);
    expect(
      result.steps.map((s) => [s.params.connections, s.verdict, s.connections.joined]),
    ).toEqual([
      [20, 'stable', 20],
      [40, 'stable', 40],
      [80, 'broken', 60],
      [60, 'broken', 0],
    ]);
    expect(result.steps[3].errors).toEqual({ 'join refused: too many joins': 60 });
    expect(sweep.stop_kind).toBe('server-rejection');
    expect(sweep.stop_reason).toBe(
      'server rejection at connections 60 (step 4): every connection refused, “join refused: too many joins” ×60; last stable connections 40 (step 2)',
    );
    const row = analyzeRun(result).capacity.find((r) => r.id === 'public_connections')!;
    expect(row).toMatchObject({ value: 40, bound: 'upper', display: '≤ 40' });
    expect(limitWords(row.limit)).toBe('server rejection: “join refused: too many joins” ×60');
  }, 120_000);
});
