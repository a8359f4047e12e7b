import { describe, expect, it } from 'vitest';
import { capacityTable } from '../../src/model/capacity.js';
import {
  FIT_SPECS,
  crossingX,
  fitSteps,
  formatFit,
  isLinear,
  leastSquares,
  predict,
} from '../../src/model/fit.js';
import { loadRun, makeStep } from '../fixtures/index.js';

describe('leastSquares', () => {
  it('recovers an exact line', () => {
    const fit = leastSquares([
      { x: 0, y: 1, step: 0 },
      { x: 1, y: 3, step: 1 },
      { x: 2, y: 5, step: 2 },
    ])!;
    expect(fit.intercept).toBeCloseTo(1, 12);
    expect(fit.slope).toBeCloseTo(2, 12);
    expect(fit.r2).toBe(1);
    expect(predict(fit, 10)).toBeCloseTo(21, 12);
    expect(crossingX(fit, 7)).toBeCloseTo(3, 12);
  });

  it('gives no line for fewer than two points or a driver that never varied', () => {
    expect(leastSquares([{ x: 1, y: 2, step: 0 }])).toBeNull();
    expect(
      leastSquares([
        { x: 1, y: 2, step: 0 },
        { x: 1, y: 3, step: 1 },
      ]),
    ).toBeNull();
  });

  it('has no crossing when the resource does not rise with the driver', () => {
    const fit = leastSquares([
      { x: 0, y: 5, step: 0 },
      { x: 1, y: 5, step: 1 },
    ])!;
    expect(fit.r2).toBe(1);
    expect(crossingX(fit, 70)).toBeNull();
  });
});

describe('seed 002 figures (rtcap reports what the data says, not what the seed text states)', () => {
  it('§1.2: CPU vs deliveries/s over the four stable points is 5.53 % + 2.406 pp per 1,000/s, R² 0.9995', () => {
    const run = loadRun('seed-002-s1.2-deliveries');
    const r = fitSteps(run.steps, FIT_SPECS.cpu_vs_deliveries);
    expect(r.fit!.n).toBe(4);
    expect(r.fit!.points.map((p) => p.step)).toEqual([0, 1, 2, 3]);
    expect(r.fit!.intercept).toBeCloseTo(5.5251, 3);
    expect(r.fit!.slope * 1000).toBeCloseTo(2.40596, 4);
    expect(r.fit!.r2).toBeCloseTo(0.99949, 4);
    expect(r.text).toBe('CPU ≈ 5.5 % + 2.41 pp × deliveries/s ÷ 1,000 (R² 0.99, 4 steps)');
    // The seed's printed 6.5 % + 2.35 pp is not what its own points give.
    expect(r.fit!.intercept).not.toBeCloseTo(6.5, 1);
    // The two degraded steps (CPU plateau at ~95 %) are left out, with the reason.
    expect(r.excluded).toEqual([
      { step: 4, reason: 'degraded: off the linear part' },
      { step: 5, reason: 'degraded: off the linear part' },
    ]);
  });

  it('§1.2: the CPU line reaches 70 % at 26,798 deliveries/s (the seed says 27,000)', () => {
    const fit = fitSteps(
      loadRun('seed-002-s1.2-deliveries').steps,
      FIT_SPECS.cpu_vs_deliveries,
    ).fit!;
    expect(crossingX(fit, 70)).toBeCloseTo(26_798.0, 0);
  });

  it('§1.2: including the degraded plateau would bend the line to 12.3 % + 2.01 pp (R² 0.96)', () => {
    const r = fitSteps(loadRun('seed-002-s1.2-deliveries').steps, FIT_SPECS.cpu_vs_deliveries, {
      verdicts: ['stable', 'degraded'],
    });
    expect(r.fit!.n).toBe(6);
    expect(r.fit!.intercept).toBeCloseTo(12.329, 2);
    expect(r.fit!.slope * 1000).toBeCloseTo(2.0062, 3);
    expect(r.fit!.r2).toBeCloseTo(0.9604, 3);
  });

  it('§1.1: memory vs connections over 82 % at 20,000 and 91.6 % at 24,000 is 34 % + 2.4 pp per 1,000 (not 35 % + 4 pp)', () => {
    const r = fitSteps(loadRun('seed-002-s1.1-connections').steps, FIT_SPECS.memory_vs_connections);
    expect(r.fit!.n).toBe(2);
    expect(r.fit!.intercept).toBeCloseTo(34.0, 9);
    expect(r.fit!.slope * 1000).toBeCloseTo(2.4, 9);
    expect(r.text).toBe(
      'Memory ≈ 34.0 % + 2.40 pp × connections ÷ 1,000 (R² 1.00, 2 steps; two points fit any line exactly)',
    );
    expect(crossingX(r.fit!, 85)).toBeCloseTo(21_250, 6);
    expect(r.excluded).toEqual([{ step: 2, reason: 'broken: off the linear part' }]);
  });
});

describe('fitSteps', () => {
  it('never uses generator-bound or incomplete steps, or steps without the figure, and says why', () => {
    const steps = [
      makeStep(0, { rates: { delivered_per_s: 1000 }, server: { cpu_pct: 10 } }),
      makeStep(1, { rates: { delivered_per_s: 2000 }, server: { cpu_pct: 20 } }),
      makeStep(2, {
        rates: { delivered_per_s: 3000 },
        server: { cpu_pct: 99 },
        verdict: 'generator-bound',
      }),
      makeStep(3, { rates: { delivered_per_s: 4000 }, server: { cpu_pct: 99 }, complete: false }),
      makeStep(4, { rates: { delivered_per_s: 5000 }, server: { cpu_pct: null } }),
    ];
    const r = fitSteps(steps, FIT_SPECS.cpu_vs_deliveries, {
      verdicts: ['stable', 'generator-bound'],
    });
    expect(r.fit!.n).toBe(2);
    expect(r.excluded.map((e) => e.reason)).toEqual([
      'generator-bound: not server capacity',
      'incomplete (cut short)',
      'cpu_pct not measured',
    ]);
  });

  it('explains a missing fit', () => {
    const one = fitSteps([makeStep(0)], FIT_SPECS.cpu_vs_deliveries);
    expect(one.fit).toBeNull();
    expect(one.text).toBe('CPU vs deliveries/s: no fit (1 usable step, 2 needed)');
    const flat = fitSteps([makeStep(0), makeStep(1)], FIT_SPECS.memory_vs_connections);
    expect(flat.text).toBe(
      'Memory vs connections: no fit (connections did not vary across the 2 usable steps)',
    );
  });
});

describe('refused fits', () => {
  const falling = [1000, 2000, 3000, 4000].map((d, i) =>
    makeStep(i, {
      messages: { expected: d * 20, received: d * 20 },
      rates: { delivered_per_s: d },
      server: { cpu_pct: [40, 34, 31, 25][i] },
    }),
  );

  it('CPU falling as deliveries/s rise is refused with the reason, never printed as a formula', () => {
    const r = fitSteps(falling, FIT_SPECS.cpu_vs_deliveries);
    expect(r.fit!.slope * 1000).toBeCloseTo(-4.8, 9);
    expect(r.fit!.r2).toBeGreaterThan(0.5);
    expect(r.fit!.refused).toBe(
      'wrong sign: CPU falls as deliveries/s rises (−4.80 pp per 1,000 deliveries/s), a negative cost per unit of load',
    );
    expect(r.text).toMatch(
      /^CPU vs deliveries\/s: fit refused — wrong sign: .* \(R² 0\.\d\d, 4 steps\)$/,
    );
    expect(r.text).not.toContain('≈');
    expect(isLinear(r.fit)).toBe(false);
  });

  it('a refused fit gives the capacity row no safe-line crossing', () => {
    const row = capacityTable({ profile: { scenario: 'broadcast-public' }, steps: falling }).find(
      (x) => x.id === 'public_deliveries',
    )!;
    expect(row.fit_crossing).toBeNull();
    expect(row.rule).toBe('highest stable (lower bound)');
  });

  it('memory falling as connections rise is refused; a rising one is not', () => {
    const mem = (ys: number[]) =>
      [1000, 2000, 3000].map((c, i) =>
        makeStep(i, {
          params: { connections: c },
          connections: { target: c, joined: c },
          server: { mem_pct: ys[i] },
        }),
      );
    expect(fitSteps(mem([50, 45, 40]), FIT_SPECS.memory_vs_connections).fit!.refused).toMatch(
      /^wrong sign: Memory falls as connections rises/,
    );
    expect(
      fitSteps(mem([40, 45, 50]), FIT_SPECS.memory_vs_connections).fit!.refused,
    ).toBeUndefined();
  });

  it('a falling line with R² below 0.5 reads "no linear relation", not refused', () => {
    const steps = [1000, 2000, 3000, 4000].map((d, i) =>
      makeStep(i, { rates: { delivered_per_s: d }, server: { cpu_pct: [30, 10, 31, 9][i] } }),
    );
    const r = fitSteps(steps, FIT_SPECS.cpu_vs_deliveries);
    expect(r.fit!.refused).toBeUndefined();
    expect(r.text).toMatch(/no linear relation/);
  });
});

describe('formatFit', () => {
  it('prints a fit with R² below 0.5 as no linear relation, not as a formula, and gives it no crossing', () => {
    const scatter = leastSquares([
      { x: 1000, y: 10, step: 0 },
      { x: 2000, y: 30, step: 1 },
      { x: 3000, y: 9, step: 2 },
      { x: 4000, y: 28, step: 3 },
    ])!;
    expect(scatter.r2).toBeLessThan(0.5);
    expect(isLinear(scatter)).toBe(false);
    expect(formatFit(scatter, FIT_SPECS.cpu_vs_deliveries)).toMatch(
      /^CPU vs deliveries\/s: no linear relation \(R² 0\.\d\d < 0\.5, 4 steps\)$/,
    );
    const steps = [1000, 2000, 3000, 4000].map((d, i) =>
      makeStep(i, {
        messages: { expected: d * 20, received: d * 20 },
        rates: { delivered_per_s: d },
        server: { cpu_pct: [10, 30, 9, 28][i] },
      }),
    );
    const row = capacityTable({ profile: { scenario: 'broadcast-public' }, steps }).find(
      (r) => r.id === 'public_deliveries',
    )!;
    expect(row.fit_crossing).toBeNull();
    expect(row.rule).not.toBe('safe-line fit');
  });

  it('prints negative terms with a minus sign and rates without pp', () => {
    const fit = leastSquares([
      { x: 1000, y: 1, step: 0 },
      { x: 2000, y: 0.5, step: 1 },
      { x: 3000, y: 0.2, step: 2 },
    ])!;
    expect(formatFit(fit, FIT_SPECS.cpu_vs_sends)).toMatch(
      /^CPU ≈ 1\.4 % − 0\.40 pp × sends\/s ÷ 1,000 \(R² 0\.97, 3 steps\)$/,
    );
    const rate = leastSquares([
      { x: 100, y: 90, step: 0 },
      { x: 200, y: 190, step: 1 },
      { x: 300, y: 290, step: 2 },
    ])!;
    expect(formatFit(rate, FIT_SPECS.join_ceiling_vs_pool_over_check)).toBe(
      'Join ceiling ≈ −10.0/s + 1.00 × pool ÷ check time (R² 1.00, 3 steps)',
    );
  });
});
