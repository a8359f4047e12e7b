/**
 * The sweep's planner is a pure function of the steps measured so far: geometric growth until
 * the first step that is not stable, generator-bound retries, bisection to the knee
 * (model/knee.ts), steps measured while the server was recovering run again.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sweepSchema } from '../../src/profile/schema/sweep.js';
import type { Sweep } from '../../src/profile/schema.js';
import type { Verdict } from '../../src/result/result.js';
import { planNextSweepStep } from '../../src/sweep/plan.js';
import type { SweepHistoryItem } from '../../src/sweep/history.js';
import { resumableSteps, SweepError } from '../../src/sweep/sweep.js';
import { stepsUpToKnee, type SweepResult } from '../../src/sweep/record.js';
import { sweepMaxConnections, sweepStepSpec } from '../../src/sweep/spec.js';
import { makeStep } from '../fixtures/index.js';
import { profileFrom } from '../support/profiles.js';

const cfg = (o: Record<string, unknown>): Sweep =>
  sweepSchema.parse({ driver: 'connections', ...o });

/**
 * Runs the planner against a server whose verdict at each value is `verdictAt(value)`, as a sweep
 * would.
 */
function simulate(
  c: Sweep,
  start: number,
  verdictAt: (v: number, attempt: number) => Verdict,
  limit = 50,
) {
  const history: SweepHistoryItem[] = [];
  for (let i = 0; i < limit; i++) {
    const d = planNextSweepStep(c, history, start);
    if ('stop' in d) return { history, stop: d.stop };
    const attempt = history.filter((h) => h.value === d.value).length;
    history.push({
      value: d.value,
      phase: d.phase,
      verdict: verdictAt(d.value, attempt),
      step: history.length + 1,
    });
  }
  throw new Error('the planner did not stop');
}

const kneeAt =
  (limit: number) =>
  (v: number): Verdict =>
    v < limit ? 'stable' : 'broken';

describe('planNextSweepStep: search', () => {
  it('grows geometrically, then bisects between the last stable and the first broken value down to the resolution', () => {
    const { history, stop } = simulate(
      cfg({ start: 2500, max: 24000, stop_after_broken: 1, resolution: 0.05 }),
      2500,
      kneeAt(19980),
    );
    expect(history.map((h) => [h.value, h.phase])).toEqual([
      [2500, 'grow'],
      [5000, 'grow'],
      [10000, 'grow'],
      [20000, 'grow'],
      [15000, 'bisect'],
      [17500, 'bisect'],
      [18750, 'bisect'],
      [19375, 'bisect'],
    ]);
    expect(stop).toBe(
      'knee between connections 19,375 (stable, step 8) and 20,000 (broken, step 4), within sweep.resolution 5 %',
    );
  });

  it('stops growing at the first broken step whatever stop_after_broken says: never doubles into an overloaded server', () => {
    const { history } = simulate(
      cfg({ start: 100, max: 1000, stop_after_broken: 2, resolution: 0.1 }),
      100,
      kneeAt(300),
    );
    expect(history.slice(0, 3).map((h) => h.value)).toEqual([100, 200, 400]);
    expect(history[3]).toMatchObject({ value: 300, phase: 'bisect' });
    expect(Math.max(...history.map((h) => h.value))).toBe(400);
  });

  it('stops at max without a knee when nothing breaks, and says so', () => {
    const { history, stop } = simulate(cfg({ start: 1000, max: 5000 }), 1000, () => 'stable');
    expect(history.map((h) => h.value)).toEqual([1000, 2000, 4000, 5000]);
    expect(stop).toMatch(/reached sweep.max \(connections 5,000\) with no broken step/);
  });

  it('retries a generator-bound step, then stops on it: the generator, not the server, is the limit', () => {
    const gen = (v: number): Verdict => (v >= 4000 ? 'generator-bound' : 'stable');
    const { history, stop } = simulate(
      cfg({ start: 1000, max: 64000, generator_bound_retries: 1 }),
      1000,
      gen,
    );
    expect(history.map((h) => [h.value, h.phase])).toEqual([
      [1000, 'grow'],
      [2000, 'grow'],
      [4000, 'grow'],
      [4000, 'retry'],
    ]);
    expect(stop).toMatch(
      /^generator-bound at connections 4,000 after 2 tries, with no broken step/,
    );
  });

  it('goes on growing when the retry of a generator-bound step is stable', () => {
    const { history } = simulate(cfg({ start: 1000, max: 8000 }), 1000, (v, attempt) =>
      v === 2000 && attempt === 0 ? 'generator-bound' : 'stable',
    );
    expect(history.map((h) => h.value)).toEqual([1000, 2000, 2000, 4000, 8000]);
  });

  it('stops growing at the first degraded step and narrows the stable → degraded transition below it', () => {
    const verdict = (v: number): Verdict =>
      v < 1300 ? 'stable' : v < 3000 ? 'degraded' : 'broken';
    const { history, stop } = simulate(
      cfg({ start: 1000, max: 8000, stop_after_broken: 1, resolution: 0.1 }),
      1000,
      verdict,
    );
    const values = history.map((h) => h.value);
    // 2000 degraded: growth stops there (never 4000, broken), and the sweep narrows [last stable
    // 1000, first degraded 2000], the latency knee near 1300.
    expect(values).toEqual([1000, 2000, 1500, 1250, 1375]);
    expect(history.map((h) => h.phase)).toEqual(['grow', 'grow', 'bisect', 'bisect', 'bisect']);
    const highestStable = Math.max(
      ...history.filter((h) => h.verdict === 'stable').map((h) => h.value),
    );
    const lowestDegraded = Math.min(
      ...history.filter((h) => h.verdict === 'degraded').map((h) => h.value),
    );
    expect(highestStable).toBeLessThan(1300);
    expect(lowestDegraded).toBeGreaterThanOrEqual(1300);
    expect(lowestDegraded - highestStable).toBeLessThanOrEqual(0.1 * lowestDegraded);
    expect(stop).toBe(
      'knee between connections 1,250 (stable, step 4) and 1,375 (degraded, step 5), within sweep.resolution 10 %',
    );
    expect(new Set(values).size).toBe(values.length); // never the same value twice
  });

  it('narrows just above the last stable value even when a lower step ran degraded (noise)', () => {
    const history: SweepHistoryItem[] = [
      { value: 2500, verdict: 'degraded', phase: 'grow', step: 1 },
      { value: 5000, verdict: 'stable', phase: 'grow', step: 2 },
      { value: 10000, verdict: 'stable', phase: 'grow', step: 3 },
      { value: 20000, verdict: 'broken', phase: 'grow', step: 4 },
    ];
    const c = cfg({ start: 2500, max: 24000, stop_after_broken: 1 });
    // 2,500 failed below the stable 5,000 and 10,000: it runs once more first; degraded again,
    // it stands, and the bisection goes on.
    expect(planNextSweepStep(c, history, 2500)).toEqual({ value: 2500, phase: 'confirm' });
    history.push(
      { value: 2500, verdict: 'degraded', phase: 'confirm', step: 5 },
      { value: 15000, verdict: 'degraded', phase: 'bisect', step: 6 },
    );
    expect(planNextSweepStep(c, history, 2500)).toEqual({ value: 12500, phase: 'bisect' });
    const done = [
      ...history,
      { value: 12500, verdict: 'degraded' as const, phase: 'bisect' as const, step: 7 },
      { value: 11250, verdict: 'degraded' as const, phase: 'bisect' as const, step: 8 },
      { value: 10625, verdict: 'degraded' as const, phase: 'bisect' as const, step: 9 },
    ];
    expect(planNextSweepStep(c, done, 2500)).toEqual({ value: 10313, phase: 'bisect' });
    done.push({ value: 10313, verdict: 'degraded', phase: 'bisect', step: 10 });
    expect(planNextSweepStep(c, done, 2500)).toEqual({
      stop: 'knee between connections 10,000 (stable, step 3) and 10,313 (degraded, step 10); broken from 20,000 (step 4), within sweep.resolution 5 %',
      kind: 'knee',
    });
  });

  it('a failure below a stable value runs once more; stable then, it no longer stands for its value', () => {
    // A history from before growth stopped at the first failure: 20,000 read degraded (a loaded
    // moment) and 40,000 stable above it.
    const c = cfg({ start: 10000, max: 160000, stop_after_broken: 1, resolution: 0.05 });
    const history: SweepHistoryItem[] = [
      { value: 10000, verdict: 'stable', phase: 'grow', step: 1 },
      { value: 20000, verdict: 'degraded', phase: 'grow', step: 2 },
      { value: 40000, verdict: 'stable', phase: 'grow', step: 3 },
    ];
    expect(planNextSweepStep(c, history, 10000)).toEqual({ value: 20000, phase: 'confirm' });
    history.push({ value: 20000, verdict: 'stable', phase: 'confirm', step: 4 });
    // Stable then: the first run no longer stands, nothing failed, the search grows on.
    expect(planNextSweepStep(c, history, 10000)).toEqual({ value: 80000, phase: 'grow' });
    history.push({ value: 80000, verdict: 'broken', phase: 'grow', step: 5 });
    expect(planNextSweepStep(c, history, 10000)).toEqual({ value: 60000, phase: 'bisect' });
  });

  it('steps down from a broken start (by sweep.factor, at most 3 times), then stops saying so', () => {
    const { history, stop } = simulate(
      cfg({ start: 5000, max: 20000, stop_after_broken: 3 }),
      5000,
      () => 'broken',
    );
    expect(history.map((h) => [h.value, h.phase])).toEqual([
      [5000, 'grow'],
      [2500, 'step-down'],
      [1250, 'step-down'],
      [625, 'step-down'],
    ]);
    expect(stop).toBe(
      'the first value, connections 5,000, was already broken, and so was every value down to 625 (3 steps down): lower sweep.start',
    );
  });

  it('a start already degraded steps down to a stable value, then finds the knee above it', () => {
    // Degraded from 1,000, broken from 3,000: the start (4,000) is past both.
    const at = (v: number): Verdict => (v < 1000 ? 'stable' : v < 3000 ? 'degraded' : 'broken');
    const { history, stop } = simulate(
      cfg({ start: 4000, max: 64000, stop_after_broken: 1, resolution: 0.05 }),
      4000,
      at,
    );
    expect(history.slice(0, 3).map((h) => [h.value, h.phase, h.verdict])).toEqual([
      [4000, 'grow', 'broken'],
      [2000, 'step-down', 'degraded'],
      [1000, 'step-down', 'degraded'],
    ]);
    expect(history[3]).toMatchObject({ value: 500, phase: 'step-down', verdict: 'stable' });
    // Then only bisection between the stable 500 and the first failure above it: nothing
    // grows past the broken start again.
    expect(history.slice(4).every((h) => h.phase === 'bisect')).toBe(true);
    expect(Math.max(...history.map((h) => h.value))).toBe(4000);
    expect(stop).toMatch(
      /^knee between connections \d{3} \(stable, step \d+\) and 1,000 \(degraded, step 3\); broken from 4,000 \(step 1\), within sweep.resolution 5 %$/,
    );
  });

  it('a degraded first step with a stable step below it is not stepped down again: the search bisects between them', () => {
    const c = cfg({ start: 2000, max: 16000 });
    expect(
      planNextSweepStep(
        c,
        [
          { value: 2000, verdict: 'degraded', phase: 'grow', step: 1 },
          { value: 1000, verdict: 'stable', phase: 'step-down', step: 2 },
        ],
        2000,
      ),
    ).toEqual({ value: 1500, phase: 'bisect' });
    // An integer driver at 1 cannot step down, nor grow into a degraded server: the search stops.
    expect(
      planNextSweepStep(
        cfg({ start: 1, max: 16 }),
        [{ value: 1, verdict: 'degraded', phase: 'grow', step: 1 }],
        1,
      ),
    ).toEqual({ stop: 'no stable step at any value up to 1', kind: 'no-stable-step' });
  });

  it('never runs more than max_steps steps', () => {
    const { history, stop } = simulate(
      cfg({ start: 1, max: 1e9, max_steps: 5 }),
      1,
      () => 'stable',
    );
    expect(history).toHaveLength(5);
    expect(stop).toBe('sweep.max_steps (5) reached');
  });

  it('rounds rates to three significant figures and counts to integers', () => {
    const c = sweepSchema.parse({
      driver: 'send_rate',
      start: 10,
      max: 100,
      stop_after_broken: 1,
      resolution: 0.01,
    });
    const { history } = simulate(c, 10, (v) => (v < 33 ? 'stable' : 'broken'));
    for (const h of history) expect(String(h.value)).toMatch(/^\d+(\.\d{1,2})?$/);
    expect(history.some((h) => !Number.isInteger(h.value))).toBe(true);
  });
});

describe('planNextSweepStep: steps that are no evidence', () => {
  const c = cfg({
    start: 1000,
    max: 16000,
    stop_after_broken: 1,
    resolution: 0.05,
    min_samples: 1000,
  });
  const item = (
    o: Partial<SweepHistoryItem> & { value: number; verdict: Verdict; step: number },
  ): SweepHistoryItem => ({ phase: 'grow', samples: 5000, ...o });

  it('runs a step short of min_samples again, longer, and runs the steps after it as long as their samples need', () => {
    const history = [item({ value: 1000, verdict: 'stable', step: 1, samples: 400 })];
    // 1,000 / 400 × 1.2 = 3×, within the default cap of 4×.
    expect(planNextSweepStep(c, history, 1000, 4)).toEqual({
      value: 1000,
      phase: 'lengthen',
      scale: 3,
    });
    history.push(
      item({ value: 1000, verdict: 'stable', step: 2, phase: 'lengthen', scale: 3, samples: 1200 }),
    );
    expect(planNextSweepStep(c, history, 1000, 4)).toEqual({
      value: 2000,
      phase: 'grow',
      scale: 3,
    });
  });

  it('does not lengthen past the cap, nor a broken step (its verdict needs no percentile), nor with min_samples 0', () => {
    expect(
      planNextSweepStep(
        c,
        [item({ value: 1000, verdict: 'stable', step: 1, samples: 10, scale: 4, at_cap: true })],
        1000,
        4,
      ),
    ).toEqual({ value: 2000, phase: 'grow', scale: 4 });
    expect(
      planNextSweepStep(
        c,
        [
          item({ value: 1000, verdict: 'stable', step: 1 }),
          item({ value: 2000, verdict: 'broken', step: 2, samples: 10 }),
        ],
        1000,
        4,
      ),
    ).toEqual({ value: 1500, phase: 'bisect' });
    expect(
      planNextSweepStep(
        cfg({ start: 1000, max: 16000, min_samples: 0 }),
        [item({ value: 1000, verdict: 'stable', step: 1, samples: 10 })],
        1000,
        4,
      ),
    ).toEqual({ value: 2000, phase: 'grow' });
  });

  it('a short step replaced by a longer run is not the knee: the longer run stands for the value', () => {
    const history = [
      item({ value: 1000, verdict: 'stable', step: 1 }),
      item({ value: 2000, verdict: 'degraded', step: 2, samples: 300 }),
      item({ value: 2000, verdict: 'stable', step: 3, phase: 'lengthen', scale: 4, samples: 1500 }),
    ];
    // 1,500 samples in 4× (375 per unit, the fewest of any stable step): 1,200 wanted → 3.2×.
    expect(planNextSweepStep(c, history, 1000, 4)).toEqual({
      value: 4000,
      phase: 'grow',
      scale: 3.2,
    });
  });

  it('runs a step measured while the server was still recovering again (sweep.recovery.reruns), and leaves it out of the knee', () => {
    const history = [
      item({ value: 1000, verdict: 'stable', step: 1 }),
      item({ value: 2000, verdict: 'stable', step: 2 }),
      item({ value: 4000, verdict: 'broken', step: 3 }),
      item({ value: 3000, verdict: 'broken', step: 4, phase: 'bisect', recovering: true }),
    ];
    expect(planNextSweepStep(c, history, 1000, 4)).toEqual({ value: 3000, phase: 'retry' });
    // Recovered this time and stable: the bracket is [3000, 4000], not [2000, 3000].
    history.push(item({ value: 3000, verdict: 'stable', step: 5, phase: 'retry' }));
    expect(planNextSweepStep(c, history, 1000, 4)).toEqual({ value: 3500, phase: 'bisect' });
    // Stable while recovering is inconclusive too: run again.
    const stableRecovering = [
      ...history.slice(0, 4),
      item({ value: 3000, verdict: 'stable', step: 5, phase: 'retry', recovering: true }),
    ];
    expect(planNextSweepStep(c, stableRecovering, 1000, 4)).toEqual({
      value: 3000,
      phase: 'retry',
    });
    // Three runs in a row before the server was back (reruns 2): the search stops there,
    // the bracket as wide as the evidence makes it.
    const never = [
      ...stableRecovering,
      item({ value: 3000, verdict: 'broken', step: 6, phase: 'retry', recovering: true }),
    ];
    expect(planNextSweepStep(c, never, 1000, 4)).toEqual({
      kind: 'not-recovered',
      stop: 'the server did not recover before 3 runs of connections 3,000 (each after sweep.recovery.max_wait, sweep.recovery.reruns 2): those steps are inconclusive; knee between connections 2,000 (stable, step 2) and 4,000 (broken, step 3) (not narrowed to sweep.resolution)',
    });
  });

  it('resumed mid-bisection, the planner gives the value the uninterrupted search would have run', () => {
    const whole = simulate(
      cfg({ start: 1000, max: 16000, stop_after_broken: 1 }),
      1000,
      kneeAt(5300),
    );
    const bisecting = whole.history.findIndex((h) => h.phase === 'bisect');
    const cut = whole.history.slice(0, bisecting + 1);
    expect(
      planNextSweepStep(cfg({ start: 1000, max: 16000, stop_after_broken: 1 }), cut, 1000),
    ).toMatchObject({ value: whole.history[bisecting + 1].value });
  });

  it('names the kind of each stop: range end, first broken, generator-bound', () => {
    expect(simulate(cfg({ start: 1000, max: 4000 }), 1000, () => 'stable')).toMatchObject({
      stop: expect.stringContaining('reached sweep.max'),
    });
    expect(
      planNextSweepStep(
        cfg({ start: 1000, max: 4000 }),
        [
          item({ value: 1000, verdict: 'stable', step: 1 }),
          item({ value: 2000, verdict: 'stable', step: 2 }),
          item({ value: 4000, verdict: 'stable', step: 3 }),
        ],
        1000,
      ),
    ).toMatchObject({ kind: 'range-end' });
    expect(
      planNextSweepStep(
        cfg({ start: 1000, max: 4000 }),
        [
          item({ value: 1000, verdict: 'broken', step: 1 }),
          item({ value: 500, verdict: 'broken', step: 2, phase: 'step-down' }),
          item({ value: 250, verdict: 'broken', step: 3, phase: 'step-down' }),
          item({ value: 125, verdict: 'broken', step: 4, phase: 'step-down' }),
        ],
        1000,
      ),
    ).toMatchObject({ kind: 'first-broken' });
  });
});

describe('planNextSweepStep: explicit values', () => {
  it('runs the values in order and stops after K consecutive broken steps', () => {
    const c = cfg({ values: [100, 200, 300, 400, 500], stop_after_broken: 2 });
    const { history, stop } = simulate(c, 100, kneeAt(250));
    expect(history.map((h) => [h.value, h.phase])).toEqual([
      [100, 'explicit'],
      [200, 'explicit'],
      [300, 'explicit'],
      [400, 'explicit'],
    ]);
    expect(stop).toBe('2 consecutive broken steps (sweep.stop_after_broken 2)');
  });

  it('stops when every value ran', () => {
    const { history, stop } = simulate(cfg({ values: [1, 2] }), 1, () => 'stable');
    expect(history).toHaveLength(2);
    expect(stop).toBe('all 2 values run');
  });
});

describe('sweep section of the profile', () => {
  it('needs max for a search, and start at or below it', () => {
    expect(() => sweepSchema.parse({ driver: 'connections' })).toThrow(/required for a search/);
    expect(() => sweepSchema.parse({ driver: 'connections', start: 10, max: 5 })).toThrow(
      /above max/,
    );
    expect(sweepSchema.parse({ driver: 'send_rate', values: [1, 2] }).stop_after_broken).toBe(2);
  });
});

describe('step specs', () => {
  const template = { connections: 100, send_rate: 10, duration: 5000, rooms: 4, members: 25 };
  it('sets the driver on load.steps.0 and labels the step', () => {
    expect(sweepStepSpec(template, 'send_rate', { value: 40, phase: 'grow' })).toEqual({
      ...template,
      send_rate: 40,
      label: 'send_rate 40 (grow)',
    });
    expect(sweepStepSpec(template, 'connections', { value: 2500, phase: 'bisect' })).toMatchObject({
      connections: 2500,
      label: 'connections 2,500 (bisect)',
    });
    expect(sweepStepSpec(template, 'subscribers', { value: 300, phase: 'grow' })).toMatchObject({
      connections: 300,
    });
  });
  it('keeps connections = rooms × members when members vary', () => {
    expect(sweepStepSpec(template, 'members', { value: 50, phase: 'grow' })).toMatchObject({
      members: 50,
      connections: 200,
    });
    expect(sweepMaxConnections(cfg({ driver: 'members', max: 80 }), template)).toBe(320);
    expect(sweepMaxConnections(cfg({ max: 24000 }), template)).toBe(24000);
    expect(sweepMaxConnections(cfg({ driver: 'send_rate', max: 100 }), template)).toBe(100);
  });
});

describe('resuming and thresholds', () => {
  const result = (
    verdicts: Verdict[],
    values: number[],
    complete = verdicts.map(() => true),
  ): SweepResult => {
    const r = JSON.parse(
      readFileSync(new URL('../fixtures/run-a.json', import.meta.url), 'utf8'),
    ) as SweepResult;
    r.steps = verdicts.map((v, i) =>
      makeStep(i + 1, {
        verdict: v,
        complete: complete[i],
        params: {
          connections: values[i],
          send_rate: 1,
          duration_s: 5,
          join_rate: 100,
          payload_bytes: 64,
        },
      }),
    );
    r.sweep = {
      driver: 'connections',
      mode: 'search',
      points: values.map((value, i) => ({ step: i + 1, value, phase: 'grow' })),
      stop_reason: null,
      knee: null,
      resumed_at: [],
    };
    return r;
  };

  it('keeps the complete steps before the first cut-short one, with their values', () => {
    const kept = resumableSteps(
      result(['stable', 'stable', 'stable'], [100, 200, 400], [true, true, false]),
      cfg({ max: 1000 }),
    );
    expect(kept.steps.map((s) => s.index)).toEqual([1, 2]);
    expect(kept.points.map((p) => p.value)).toEqual([100, 200]);
  });

  it('refuses to resume a sweep over another driver', () => {
    expect(() =>
      resumableSteps(result(['stable'], [100]), cfg({ driver: 'send_rate', max: 10 })),
    ).toThrow(SweepError);
  });

  it('judges thresholds on the steps up to the knee only', () => {
    const r = result(['stable', 'stable', 'broken', 'stable'], [100, 200, 400, 300]);
    expect(stepsUpToKnee(r).map((s) => s.index)).toEqual([1, 2, 4]);
    const noKnee = result(['stable', 'stable'], [100, 200]);
    expect(stepsUpToKnee(noKnee).map((s) => s.index)).toEqual([1, 2]);
  });

  it('a profile resolves the sweep section with its defaults', () => {
    const p = profileFrom({
      name: 's',
      scenario: 'broadcast-public',
      load: { steps: [{ connections: 10, duration: '1s' }] },
      sweep: { driver: 'connections', max: 100 },
    });
    expect(p.sweep).toMatchObject({
      factor: 2,
      resolution: 0.05,
      stop_after_broken: 2,
      generator_bound_retries: 1,
      max_steps: 20,
    });
    expect(p.thresholds).toEqual([]);
  });
});
