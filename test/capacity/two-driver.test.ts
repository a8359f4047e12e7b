import { describe, expect, it } from 'vitest';
import { describeJointBound, fitTwoDrivers, predictTwo, withinJointBound } from '../../src/capacity/two-driver.js';

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
    expect(text).toContain('CPU ≈ 5.0% + 3.00 pp × sends/s ÷ 1000 + 2.00 pp × deliveries/s ÷ 1000 (R² 1.00, 4 steps)');
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
