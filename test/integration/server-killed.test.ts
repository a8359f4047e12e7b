/**
 * A server killed with SIGKILL mid-step (its connections end without a close frame, 1006): the
 * step is broken, its first reason "the server went away", never generator-bound however far
 * the generator fell behind the schedule once no one was left to send to; the closing sentence
 * says so; the run aborts (exit 3) within seconds.
 */
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { headline } from '../../src/report/headline.js';
import { runBenchmark } from '../../src/run/runner.js';
import { EXIT } from '../../src/util/exit-codes.js';
import { DEV_JWT_SECRET } from '../../src/builtin/config.js';
import { isIncompleteReason } from '../../src/model/format.js';
import { profileFrom } from '../support/profiles.js';
import { startServeProcess } from '../support/rtcap-process.js';
import { tempDir } from '../support/temp-dir.js';

const work = tempDir('rtcap-killed-');
let serve: ChildProcess | null = null;
afterAll(() => {
  serve?.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

describe('the server killed with SIGKILL mid-step', () => {
  it('the step is broken: the server went away; the closing sentence says so', async () => {
    const started = await startServeProcess();
    serve = started.child;
    const profile = profileFrom({
      name: 'killed',
      scenario: 'broadcast-public',
      target: {
        url: `ws://127.0.0.1:${started.port}/socket/websocket`,
        auth: { jwt_secret: DEV_JWT_SECRET },
      },
      load: {
        join_rate: 100,
        drain: '2s',
        steps: [
          { connections: 20, send_rate: 5, duration: '3s' },
          { connections: 20, send_rate: 5, duration: '6s' },
        ],
      },
    });
    const t0 = Date.now();
    const outcome = await runBenchmark({
      profile,
      profilePath: null,
      redactedProfile: {},
      outDir: join(work, 'run'),
      log: (line) => {
        // Two seconds into the second step's steady sends.
        if (line.startsWith('step 2/2')) setTimeout(() => started.child.kill('SIGKILL'), 2_000);
      },
    });
    outcome.release?.();
    expect(Date.now() - t0).toBeLessThan(90_000);
    expect(outcome.exitCode).toBe(EXIT.aborted);
    const r = outcome.result;
    expect(r.steps).toHaveLength(2);
    const step = r.steps[1];
    expect(step.verdict).toBe('broken');
    const first = step.verdict_reasons.find((x) => !isIncompleteReason(x));
    expect(first).toMatch(
      /^the server went away: 20 of 20 connections dropped without a close frame \(1006\)$/,
    );
    expect(
      step.verdict_reasons
        .filter((x) => /offered|lag/.test(x))
        .every((x) => x.startsWith('also: ')),
    ).toBe(true);
    expect(headline(r)).toMatch(/the server went away: 20 of 20 connections dropped/);
  }, 120_000);
});
