/**
 * A search step ends with its ramp once what the ramp counted already makes its verdict broken or
 * generator-bound, judged by the verdict rules themselves with the rest of the step at its best;
 * a ramp whose failures the SLO still allows, or with none, runs on.
 */
import { describe, expect, it } from 'vitest';
import { decideVerdict } from '../../src/model/verdict.js';
import { DEFAULT_GENERATOR_LIMITS } from '../../src/model/verdict-input.js';
import { bestAfterRamp, settledByRamp } from '../../src/sweep/early-stop.js';

const slo = { p95_ms: 200, delivery_rate: 1 };
const limits = DEFAULT_GENERATOR_LIMITS;

function ramp(target: number, failed: number, errors: Record<string, number> = {}) {
  return { target, joined: target - failed, failed, errors: new Map(Object.entries(errors)) };
}

describe('settledByRamp', () => {
  it('runs on after a ramp with no failure', () => {
    expect(settledByRamp(ramp(1000, 0), slo, limits)).toBeNull();
    // At its best the rest of such a step measures nothing wrong: not broken, not generator-bound.
    expect(decideVerdict(bestAfterRamp(ramp(1000, 0)), slo, limits).verdict).toBe('inconclusive');
  });

  it('ends a step whose joins failed when every join must succeed', () => {
    const why = settledByRamp(ramp(200, 20, { 'join timeout after 20 s': 20 }), slo, limits);
    expect(why).toBe('broken whatever the rest measures: 20 connections failed or were rejected');
  });

  it('quotes the server refusing joins in its own words', () => {
    const why = settledByRamp(
      ramp(120, 20, { 'join refused: Too many connected users': 20 }),
      slo,
      limits,
    );
    expect(why).toMatch(
      /^broken whatever the rest measures: server rejection: .*Too many connected users/,
    );
  });

  it('runs on while the failures stay within the SLO join_success, and ends past it', () => {
    const allowing = { ...slo, join_success: 0.9 };
    const errors = { 'join timeout after 20 s': 5 };
    expect(settledByRamp(ramp(100, 5, errors), allowing, limits)).toBeNull();
    expect(settledByRamp(ramp(100, 11, { 'join timeout after 20 s': 11 }), allowing, limits)).toBe(
      'broken whatever the rest measures: joins 89.00% succeeded < SLO 90.00% (11 failed or rejected)',
    );
  });

  it("ends a step whose ramp hit the generator's own OS limit: generator-bound whatever follows", () => {
    const why = settledByRamp(
      ramp(5000, 40, { 'connect EMFILE: open-file limit reached: 1,024 per process': 40 }),
      slo,
      limits,
    );
    expect(why).toMatch(
      /^generator-bound whatever the rest measures: generator-side errors: EMFILE ×40/,
    );
  });
});
