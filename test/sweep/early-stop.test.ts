/**
 * A search step ends with its ramp once what the ramp counted already keeps its verdict from being
 * stable, judged by the verdict rules themselves with the rest of the step at its best: failed or
 * refused joins (broken), the generator's own OS limits or joins it opened late
 * (generator-bound), a join rate the server did not keep up with (degraded). A ramp whose
 * failures the SLO still allows, or with none, runs on.
 */
import { describe, expect, it } from 'vitest';
import { decideVerdict } from '../../src/model/verdict.js';
import { DEFAULT_GENERATOR_LIMITS } from '../../src/model/verdict-input.js';
import type { RampOutcome } from '../../src/run/run-options.js';
import { bestAfterRamp, settledByRamp } from '../../src/sweep/early-stop.js';

const slo = { p95_ms: 200, delivery_rate: 1 };
const limits = DEFAULT_GENERATOR_LIMITS;

/**
 * A ramp of `target` joins at 100/s (from none), `failed` of them failed; the others answered
 * over `spanMs` from the first reply to the last; `late` opened late by the generator.
 */
function ramp(
  target: number,
  failed: number,
  errors: Record<string, number> = {},
  o: { spanMs?: number; late?: number; ratePerS?: number } = {},
): RampOutcome {
  const ratePerS = o.ratePerS ?? 100;
  const joined = target - failed;
  const spanMs = o.spanMs ?? ((joined - 1) / ratePerS) * 1000;
  return {
    target,
    joinRatePerS: ratePerS,
    joined,
    failed,
    errors: new Map(Object.entries(errors)),
    joins: {
      rampJoined: joined,
      firstReplyMs: 1_000_000,
      lastReplyMs: 1_000_000 + spanMs,
      behindSchedule: o.late ?? 0,
      rejoins: 0,
    },
    scheduledJoins: target,
  };
}

describe('settledByRamp', () => {
  it('runs on after a ramp with no failure, joined at the rate offered, on schedule', () => {
    expect(settledByRamp(ramp(1000, 0), slo, limits)).toBeNull();
    // At its best the rest of such a step is stable: its ramp kept the rate it was offered.
    expect(decideVerdict(bestAfterRamp(ramp(1000, 0)), slo, limits).verdict).toBe('stable');
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

  it('ends a step whose joins the generator opened late: its offered ratio is at most theirs', () => {
    expect(settledByRamp(ramp(1000, 0, {}, { late: 10 }), slo, limits)).toBeNull();
    expect(settledByRamp(ramp(1000, 0, {}, { late: 40 }), slo, limits)).toBe(
      'generator-bound whatever the rest measures: offered 96.00% of the scheduled load < 99.00% (behind: joins 96.00%)',
    );
  });

  it('ends a step whose ramp the server answered below 90 % of the join rate offered', () => {
    // 800 joins at 100/s are due over 7.99 s: answered over 8.4 s (95 %) the step runs on,
    // over 9.0 s (88.8/s) it is degraded whatever follows.
    expect(settledByRamp(ramp(800, 0, {}, { spanMs: 8_400 }), slo, limits)).toBeNull();
    expect(settledByRamp(ramp(800, 0, {}, { spanMs: 9_000 }), slo, limits)).toBe(
      'degraded whatever the rest measures: joins 88.8/s < 90% of the 100/s offered: the server fell behind the join schedule',
    );
    // A ramp shorter than a second is not judged by its rate (model/verdict-input).
    expect(settledByRamp(ramp(50, 0, {}, { spanMs: 2_000 }), slo, limits)).toBeNull();
  });
});
