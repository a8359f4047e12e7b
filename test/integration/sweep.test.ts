/**
 * `rtcap sweep` end to end against the built-in server in this process, whose tenant admits
 * at most 100 concurrent users: the knee along connections is known (100 stable, above that
 * joins are refused with "Too many connected users"). The sweep must grow, bisect to it,
 * resume after an interruption, and write every artefact.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runArtifactHooks, writeArtifacts, type ResultFile } from '../../src/artefacts/render.js';
import { runSweep } from '../../src/sweep/sweep.js';
import type { SweepResult } from '../../src/sweep/record.js';
import type { RunningServer } from '../../src/server/server.js';
import { serve } from '../server/helpers.js';
import { profileFrom } from '../support/profiles.js';
import { tempDir } from '../support/temp-dir.js';

let server: RunningServer;
beforeAll(async () => {
  server = await serve({ config: { max_concurrent_users: 100 } });
});
afterAll(async () => {
  await server.close();
});

const quiet = (l: string) => {
  if (process.env.SWEEP_DEBUG) console.error(l);
};

function sweepProfile() {
  return profileFrom({
    name: 'sweep-knee',
    scenario: 'broadcast-public',
    target: {
      url: server.url,
      vsn: '2.0.0',
      auth: { jwt_secret: 'super-secret-jwt-token-with-at-least-32-characters-long' },
    },
    load: {
      join_rate: 1000,
      drain: '2s',
      settle: '300ms',
      steps: [{ connections: 40, send_rate: 5, duration: '1s' }],
    },
    // The knee is what this test is about: steps of 200 samples are not lengthened (min_samples 0),
    // and no recovery probe (its connection would be one user more than the tenant admits, refused
    // after the server's error backoff; test/integration/known-answer-search.test.ts has the
    // probe).
    sweep: {
      driver: 'connections',
      start: 40,
      factor: 2,
      max: 400,
      stop_after_broken: 1,
      resolution: 0.1,
      min_samples: 0,
      recovery: { probe: false },
      // The built-in server counts a user out as its socket closes: a step after a broken one
      // ramps as soon as the old connections are closed (step 5 below must still join 100 of 100).
      fresh_pause: '0s',
    },
    // Latency is not what this sweep is about: a loaded test machine must not turn a step degraded.
    slo: { p95_ms: 5000 },
    thresholds: ['delivery_rate >= 0.999', 'errors == 0'],
  });
}

describe('rtcap sweep', () => {
  it('grows, bisects to the knee the server enforces, and stops within the resolution', async () => {
    const dir = tempDir('rtcap-sweep-');
    const { result, sweep, exitCode } = await runSweep({
      profile: sweepProfile(),
      profilePath: null,
      redactedProfile: { thresholds: sweepProfile().thresholds },
      outDir: dir,
      log: quiet,
      ...runArtifactHooks(),
    });
    expect(exitCode).toBe(0);
    expect(sweep.points.map((p) => [p.value, p.phase])).toEqual([
      [40, 'grow'],
      [80, 'grow'],
      [160, 'grow'],
      [120, 'bisect'],
      [100, 'bisect'],
      [110, 'bisect'],
    ]);
    expect(result.steps.map((s) => s.verdict)).toEqual([
      'stable',
      'stable',
      'broken',
      'broken',
      'stable',
      'broken',
    ]);
    // The broken steps ended with their ramps (sweep/early-stop): the refused joins had already
    // broken them, so no steady window ran (1 s planned) and the knee is the one the server
    // enforces, as when every step ran whole. The stable ones ran whole.
    for (const s of result.steps) {
      if (s.verdict !== 'broken') {
        expect(s.complete).toBe(true);
        continue;
      }
      expect(s.complete).toBe(false);
      expect(s.cut_short?.by).toMatch(
        /^stopped early after its ramp: broken whatever the rest measures: server rejection: .*Too many connected users/,
      );
      expect(s.window.steady_end - s.window.steady_start).toBeLessThan(1000);
      expect(s.window.drain_end).toBe(s.window.steady_end);
    }
    // A bisection step after a broken one starts from fresh connections: 100 of 100 joined, not the
    // leftovers.
    expect(result.steps[4].connections).toMatchObject({ target: 100, joined: 100, failed: 0 });
    // Refused at the upgrade (HTTP 429) or at the join, depending on when the 100th user joined.
    const refused = Object.entries(result.steps[3].errors).filter(([reason]) =>
      reason.includes('Too many connected users'),
    );
    expect(refused.reduce((n, [, k]) => n + k, 0)).toBe(20);
    expect(sweep.knee).toMatchObject({
      last_stable: { step: 5, value: 100 },
      first_broken: { step: 6, value: 110 },
    });
    expect(sweep.stop_reason).toBe(
      'knee between connections 100 (stable, step 5) and 110 (broken, step 6), within sweep.resolution 10 %',
    );

    const file = result as ResultFile;
    expect(writeArtifacts(file, dir)).toEqual([]);
    const saved = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as ResultFile;
    expect(saved.sweep?.points).toHaveLength(6);
    const capacity = (
      saved.analysis as { capacity: { id: string; value: number; limiting_factor: string }[] }
    ).capacity;
    expect(capacity.find((c) => c.id === 'public_connections')).toMatchObject({
      value: 100,
      limiting_factor: 'rejection',
    });
    // Thresholds are judged up to the knee: the broken steps above it are the sweep's purpose.
    expect(saved.thresholds).toMatchObject({ pass: true, steps: [1, 2, 5] });
    for (const f of ['summary.md', 'report.html', 'timeseries.ndjson'])
      expect(existsSync(join(dir, f))).toBe(true);
    expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toContain(
      'Knee: last stable connections 100 (step 5), first broken 110 (step 6).',
    );
  }, 120_000);

  it('resumes an interrupted sweep from its result.json and continues where it stopped', async () => {
    const dir = tempDir('rtcap-sweep-');
    const ac = new AbortController();
    const first = await runSweep({
      profile: sweepProfile(),
      profilePath: null,
      redactedProfile: {},
      outDir: dir,
      log: quiet,
      signal: ac.signal,
      onStep: (r) => {
        if (r.steps.length === 2) ac.abort();
      },
      ...runArtifactHooks(),
    });
    expect(first.exitCode).toBe(130);
    expect(first.result.status).toBe('interrupted');
    const saved = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as SweepResult;
    const kept = saved.steps.filter((s) => s.complete !== false).length;
    expect(kept).toBeGreaterThanOrEqual(2);

    const second = await runSweep({
      profile: sweepProfile(),
      profilePath: null,
      redactedProfile: {},
      outDir: dir,
      log: quiet,
      resumeFrom: saved,
      ...runArtifactHooks(),
    });
    expect(second.exitCode).toBe(0);
    expect(second.result.run_id).toBe(first.result.run_id);
    expect(second.sweep.resumed_at).toHaveLength(1);
    expect(second.result.steps.map((s) => s.index)).toEqual(
      second.result.steps.map((_, i) => i + 1),
    );
    expect(second.sweep.points.map((p) => p.value)).toEqual([40, 80, 160, 120, 100, 110]);
    expect(second.sweep.knee?.last_stable?.value).toBe(100);
    // The timeseries holds the kept steps' seconds and the new ones, each step once in time order.
    const lines = readFileSync(join(dir, 'timeseries.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { step: number; t: number });
    expect(Math.max(...lines.map((l) => l.step))).toBe(6);
  }, 120_000);
});
