/**
 * The sweep's runner hooks over a fake run (no server: the recovery probe is off): growth stops
 * at the first step that is not stable and the search bisects below it; a failure below a
 * stable value (a history from before growth stopped there) is run again (`confirm`), and a
 * stable second run marks the first one superseded, so model/knee and the capacity row leave it
 * out.
 */
import { describe, expect, it } from 'vitest';
import { findKnee } from '../../src/model/knee.js';
import type { RunResult } from '../../src/result/result.js';
import { SweepSteps } from '../../src/sweep/steps.js';
import type { SweepRecord } from '../../src/sweep/record.js';
import { makeRun, makeStep } from '../fixtures/index.js';
import { profileFrom } from '../support/profiles.js';

const profile = profileFrom({
  name: 'sweep-steps',
  scenario: 'broadcast-public',
  target: { url: 'ws://127.0.0.1:9/socket/websocket' },
  load: { steps: [{ connections: 100, send_rate: 1000, duration: '4s' }] },
  sweep: {
    driver: 'send_rate',
    start: 1000,
    max: 64000,
    min_samples: 0,
    recovery: { probe: false },
  },
});

describe('SweepSteps', () => {
  it('runs a failure below a stable value again and, stable then, marks the first run superseded', async () => {
    const record: SweepRecord = {
      driver: 'send_rate',
      mode: 'search',
      points: [],
      stop_reason: null,
      knee: null,
      resumed_at: [],
    };
    const steps = new SweepSteps({
      profile,
      cfg: profile.sweep!,
      template: profile.load.steps[0],
      start: 1000,
      record,
      say: () => undefined,
      budgetMs: null,
      spentBeforeMs: 0,
    });
    const run: RunResult = makeRun('broadcast-public', []);
    const target = {
      socketUrl: '',
      headers: {},
      vsn: '1.0.0' as const,
      tokens: { role: 'anon', ttlMs: 1000, apikeyIn: 'query' as const },
      joinTimeoutMs: 1000,
      sleep: () => Promise.resolve(),
    };
    const measure = async (verdict: 'stable' | 'degraded') => {
      const spec = await steps.next(run, target);
      const step = makeStep(run.steps.length + 1, {
        params: { connections: 100, send_rate: spec!.send_rate! },
        verdict,
      });
      steps.annotate(step);
      run.steps.push(step);
      return spec!.send_rate;
    };
    expect(await measure('stable')).toBe(1000);
    expect(await measure('degraded')).toBe(2000);
    // Never into a degraded server: the next value is between the last stable and it.
    const bisect = await steps.next(run, target);
    expect(bisect?.send_rate).toBe(1500);
    record.points.pop();
    // A history in which 4,000 ran stable above the degraded 2,000 (a search resumed from an
    // older rtcap): 2,000 runs once more.
    record.points.push({ step: 3, value: 4000, phase: 'grow' });
    const step3 = makeStep(3, { params: { connections: 100, send_rate: 4000 } });
    steps.annotate(step3);
    run.steps.push(step3);
    expect(await measure('stable')).toBe(2000);
    expect(record.points.map((p) => p.phase)).toEqual(['grow', 'grow', 'grow', 'confirm']);
    expect(run.steps[1].search).toMatchObject({ superseded_by: 4 });
    expect(run.steps[1].search!.notes).toEqual([
      'degraded at send_rate 2000 while a higher value was stable; run again (step 4), stable: this run does not stand for the value',
    ]);
    // The knee the capacity row reads no longer stops at the first run of 2,000.
    const knee = findKnee(run.steps, 'send_rate');
    expect(knee.first_unsafe).toBeNull();
    expect(knee.safe).toMatchObject({ value: 4000 });
  });
});
