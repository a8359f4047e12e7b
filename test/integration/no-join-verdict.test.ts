/**
 * Verdicts that say what happened, against servers whose behaviour is known:
 *
 * a server that answers every join with a frame that is not Phoenix's (not JSON): no
 * connection could join, so the step is broken, its connections counted as failed with the
 * reason the server gave — never generator-bound with 0 joined and 0 failed. (A ramp cut short
 * by SIGTERM: test/integration/cut-short.test.ts; a server killed after a stable step: there too.)
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { headline } from '../../src/report/headline.js';
import { runBenchmark } from '../../src/run/runner.js';
import { EXIT } from '../../src/util/exit-codes.js';
import { profileFrom } from '../support/profiles.js';
import { startTestServerProcess, type TestServerProcess } from '../support/test-server-process.js';
import { tempDir } from '../support/temp-dir.js';

const work = tempDir('rtcap-verdicts-');
let server: TestServerProcess | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('a step no connection could join', () => {
  it('every join answered with a frame that is not JSON: broken, 20 of 20 failed by reason', async () => {
    server = await startTestServerProcess({ malformed: true });
    const profile = profileFrom({
      name: 'not-json',
      scenario: 'broadcast-public',
      target: { url: server.url, vsn: '1.0.0', join_timeout: '30s' },
      load: {
        join_rate: 100,
        drain: '1s',
        steps: [{ connections: 20, send_rate: 2, duration: '3s' }],
      },
    });
    const outcome = await runBenchmark({
      profile,
      profilePath: null,
      redactedProfile: {},
      outDir: join(work, 'not-json'),
      log: () => undefined,
    });
    outcome.release?.();
    expect(outcome.exitCode).toBe(EXIT.aborted);
    const r = outcome.result;
    expect(r.abort_reason).toMatch(/^no connection could join: malformed frame \(not JSON\)/);
    const step = r.steps[0];
    expect(step.verdict, step.verdict_reasons.join('; ')).toBe('broken');
    expect(step.connections).toMatchObject({ target: 20, joined: 0, failed: 20 });
    expect(Object.keys(step.errors)).toEqual([
      'malformed frame (not JSON): this is not a phoenix frame {',
    ]);
    expect(step.verdict_reasons).toContain('20 connections failed or were rejected');
    expect(step.verdict_reasons.filter((x) => !x.startsWith('also:'))).not.toContainEqual(
      expect.stringMatching(/offered|lag|generator/),
    );
    const h = headline(r);
    expect(h).toMatch(/step 1 \(20 connections[^)]*\) was broken — 20 connections failed/);
    expect(h).not.toMatch(/generator-bound/);
  }, 120_000);
});
