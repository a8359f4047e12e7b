import { describe, expect, it } from 'vitest';
import {
  describeJointBound,
  driverR2,
  fitTwoDrivers,
  judgeJointFit,
  predictTwo,
  withinJointBound,
} from '../../src/capacity/two-driver.js';

// CPU = 5 % + 3 pp per 1000 sends/s + 2 pp per 1000 deliveries/s, exactly.
const cpu = (s: number, d: number) => 5 + (3 * s) / 1000 + (2 * d) / 1000;
const pts = [
  [2500, 17_200],
  [5000, 4900],
  [1000, 8000],
  [4000, 12_000],
].map(([x1, x2], i) => ({ x1, x2, y: cpu(x1, x2), step: i + 1 }));

describe('fitTwoDrivers', () => {
  it('recovers a known plane exactly', () => {
    const f = fitTwoDrivers(pts)!;
    expect(f.intercept).toBeCloseTo(5, 9);
    expect(f.slope1 * 1000).toBeCloseTo(3, 9);
    expect(f.slope2 * 1000).toBeCloseTo(2, 9);
    expect(f.r2).toBeCloseTo(1, 9);
    expect(f.n).toBe(4);
    expect(predictTwo(f, 6000, 17_000)).toBeCloseTo(cpu(6000, 17_000), 6);
  });

  it('states the joint bound: 3 × sends + 2 × deliveries (per 1000) ≤ 65 at 70 %', () => {
    const f = fitTwoDrivers(pts)!;
    const text = describeJointBound(f, 70, ['sends/s', 'deliveries/s']);
    expect(text).toContain(
      'CPU ≈ 5.0% + 3.00 pp × sends/s ÷ 1000 + 2.00 pp × deliveries/s ÷ 1000 (R² 1.00, 4 steps)',
    );
    expect(text).toContain('3.00 × sends/s + 2.00 × deliveries/s (per 1000) ≤ 65.0');
    expect(text).toContain('sends/s alone ≤ 21,666, deliveries/s alone ≤ 32,500');
    expect(withinJointBound(f, 70, 6000, 17_000)).toBe(true); // 5 + 18 + 34 = 57
    expect(withinJointBound(f, 70, 10_000, 20_000)).toBe(false); // 5 + 30 + 40 = 75
  });

  it('no fit from fewer than three steps, or from drivers that moved together', () => {
    expect(fitTwoDrivers(pts.slice(0, 2))).toBeNull();
    const together = [1, 2, 3, 4].map((k) => ({ x1: 1000 * k, x2: 8000 * k, y: 10 + k, step: k }));
    expect(fitTwoDrivers(together)).toBeNull();
  });
});

describe('judgeJointFit: a joint fit is a model or refused with the reason', () => {
  const labels: [string, string] = ['sends/s', 'deliveries/s'];

  it('accepts independent drivers with positive costs', () => {
    const j = judgeJointFit(pts, labels);
    expect(j.refused).toBeNull();
    expect(j.fit!.slope1 * 1000).toBeCloseTo(3, 9);
  });

  it('refuses drivers in fixed proportion (deliveries = 7 × sends) even with noise on CPU', () => {
    // Fan-out 7 held fixed, deliveries jittered by a few per cent: r² of the drivers ≈ 1.
    const together = [500, 1000, 1500, 2000, 2500].map((s, i) => ({
      x1: s,
      x2: 7 * s * [1, 1.01, 0.99, 1.02, 0.98][i],
      y: 6 + 0.004 * s + [0.3, -0.2, 0.1, -0.4, 0.2][i],
      step: i,
    }));
    expect(driverR2(together)).toBeGreaterThan(0.99);
    const j = judgeJointFit(together, labels);
    expect(j.fit).toBeNull();
    expect(j.refused).toMatch(
      /^joint fit of CPU on sends\/s and deliveries\/s refused: collinear — sends\/s and deliveries\/s moved together over the 5 steps \(r² 0\.9\d\d ≥ 0\.9\)/,
    );
    // The unjudged solver would have printed a model with a negative cost per send.
    const raw = fitTwoDrivers(together);
    expect(
      raw === null || raw.slope1 < 0 || raw.slope2 < 0 || Math.abs(raw.slope1 * 1000 - 4) > 0.5,
    ).toBe(true);
  });

  it('refuses a negative cost: CPU falling as sends/s rise', () => {
    // CPU = 6.3 − 3.78 pp per 1,000 sends/s + 1.15 pp per 1,000 deliveries/s, exactly, on
    // independent drivers.
    const wrong = pts.map((p) => ({ ...p, y: 6.3 - (3.78 * p.x1) / 1000 + (1.15 * p.x2) / 1000 }));
    const j = judgeJointFit(wrong, labels);
    expect(j.fit).toBeNull();
    expect(j.refused).toBe(
      'joint fit of CPU on sends/s and deliveries/s refused: wrong sign — CPU would fall as sends/s rises (sends/s −3.78 pp per 1,000; R² 1.00, 4 steps), a negative cost',
    );
  });

  it('R² below 0.5 is "no linear relation"; fewer than 3 steps is no fit', () => {
    const xs = [
      [1000, 8000],
      [2000, 3000],
      [3000, 12_000],
      [4000, 6000],
      [1500, 15_000],
      [3500, 2000],
      [2500, 9000],
      [500, 4000],
    ];
    const ys = [20, 22, 19, 21, 22, 20, 19, 21]; // CPU that follows neither driver (R² 0.11)
    const noise = xs.map(([x1, x2], i) => ({ x1, x2, y: ys[i], step: i }));
    expect(judgeJointFit(noise, labels).refused).toBe(
      'joint fit of CPU on sends/s and deliveries/s: no linear relation (R² 0.11, 8 steps, R² < 0.5)',
    );
    expect(judgeJointFit(pts.slice(0, 2), labels).refused).toBe(
      'no joint fit of CPU on sends/s and deliveries/s: it needs 3 or more stable steps with CPU measured (have 2)',
    );
  });
});
