import { describe, expect, it } from 'vitest';
import { judgeQuota, shortfall, type JudgeInput } from '../../src/quotas/judge.js';
import type { PhaseEvidence } from '../../src/result/quotas.js';

const settings = { tolerance: 0.1, min_offered_ratio: 0.95 };
const TOO_MANY = 'Too many joins per second';

function phase(o: Partial<PhaseEvidence> = {}): PhaseEvidence {
  return {
    load: '32 joins/s for 1.4 s (80 % of 40)',
    target: 32,
    offered: 32,
    skipped: 0,
    accepted: 45,
    rejections: 0,
    reasons: {},
    ...o,
  };
}

function input(
  o: {
    below?: Partial<PhaseEvidence>;
    above?: Partial<PhaseEvidence>;
    onset?: number | null;
    recovered?: number | null;
  } = {},
): JudgeInput {
  return {
    quota: 'max_joins_per_second',
    declared: 40,
    expectedOnset: 40,
    settings,
    onset: o.onset === undefined ? 41 : o.onset,
    phases: {
      below: phase(o.below),
      above: phase({
        load: '50 joins/s',
        target: 50,
        offered: 50,
        rejections: 3,
        reasons: { [TOO_MANY]: 3 },
        ...o.above,
      }),
      recovery: {
        ...phase(),
        recovered_after_ms: o.recovered === undefined ? 0 : o.recovered,
        window_ms: 1400,
      },
    },
  };
}

describe('judgeQuota', () => {
  it('pass: nothing refused below at the full offered load, the expected refusal above, onset within tolerance, recovered', () => {
    const r = judgeQuota(input());
    expect(r).toMatchObject({ result: 'pass', pass: true, failures: [], inconclusive: [] });
    expect(r.evidence).toBe(
      'below 32 joins/s for 1.4 s (80 % of 40) (offered 32 of 32 joins/s): 0 rejected; above 50 joins/s (offered 50 of 50 joins/s): 3 "Too many joins per second", onset 41 joins/s (+2.5 %); back below: no refusal',
    );
  });

  it('inconclusive, never pass, when the below phase offered less than its target and nothing was refused', () => {
    const r = judgeQuota(input({ below: { offered: 16, skipped: 22 } }));
    expect(r.result).toBe('inconclusive');
    expect(r.pass).toBe(false);
    expect(r.failures).toEqual([]);
    expect(r.inconclusive).toEqual([
      'below: offered 16 of 32 joins/s (50.0 %, under 95 %); 22 actions skipped — no evidence that 32 joins/s for 1.4 s (80 % of 40) is admitted',
    ]);
    expect(r.evidence).toContain('(offered 16 of 32 joins/s, 22 skipped)');
  });

  it('inconclusive when the above phase offered too little to expect a refusal, instead of "no rejection above"', () => {
    const r = judgeQuota(
      input({ above: { offered: 30, rejections: 0, reasons: {} }, onset: null }),
    );
    expect(r.result).toBe('inconclusive');
    expect(r.inconclusive).toEqual([
      'above: offered 30 of 50 joins/s (60.0 %, under 95 %) — too little load to expect a refusal',
    ]);
    const full = judgeQuota(input({ above: { rejections: 0, reasons: {} }, onset: null }));
    expect(full.result).toBe('fail');
    expect(full.failures).toEqual(['no rejection above the declared value (50 joins/s)']);
  });

  it('a refusal below fails even at less load than planned; a failure outranks inconclusive', () => {
    const r = judgeQuota(
      input({ below: { offered: 16, rejections: 2, reasons: { [TOO_MANY]: 2 } }, onset: 20 }),
    );
    expect(r.result).toBe('fail');
    expect(r.failures[0]).toBe(
      'rejected below the declared value: 2 at 32 joins/s for 1.4 s (80 % of 40) (Too many joins per second ×2)',
    );
    expect(judgeQuota(input({ below: { offered: 16 }, recovered: null })).result).toBe('fail');
  });

  it('onset off by more than the tolerance fails, naming both', () => {
    expect(judgeQuota(input({ onset: 30 })).failures).toEqual([
      'onset 30 joins/s is -25 % off the declared 40 joins/s (tolerance 10 %)',
    ]);
  });
});

describe('shortfall', () => {
  it('null at or above the share; a line otherwise; unmeasured is a shortfall', () => {
    expect(shortfall(phase({ offered: 30.4 }), 'joins/s', 0.95)).toBeNull();
    expect(shortfall(phase({ offered: 30.3 }), 'joins/s', 0.95)).toBe(
      'offered 30.3 of 32 joins/s (94.7 %, under 95 %)',
    );
    expect(shortfall(phase({ offered: null }), 'joins/s', 0.95)).toBe(
      'offered load not measured (target 32 joins/s)',
    );
  });
});
