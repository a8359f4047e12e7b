import { describe, expect, it } from 'vitest';
import { findKnee, nextBisectionValue } from '../../src/model/knee.js';
import { loadRun, makeStep } from '../fixtures/index.js';

describe('findKnee', () => {
  it('§1.2: latency goes first — last stable 33,988/s, first degraded 40,000/s, nothing broken', () => {
    const k = findKnee(loadRun('seed-002-s1.2-deliveries').steps, 'expected_per_s');
    expect(k.safe).toEqual({ step: 3, value: 33_988, verdict: 'stable' });
    expect(k.last_stable).toEqual(k.safe);
    expect(k.first_degraded).toEqual({ step: 4, value: 40_000, verdict: 'degraded' });
    expect(k.first_broken).toBeNull();
    expect(k.bracket).toBeNull();
  });

  it('§4: the 100/s step with 2 failed joins stops the driver; 120/s stable above it is listed, not used', () => {
    const k = findKnee(loadRun('seed-002-s4-join-rate').steps, 'join_rate');
    expect(k.last_stable).toEqual({ step: 0, value: 50, verdict: 'stable' });
    expect(k.first_broken).toEqual({ step: 1, value: 100, verdict: 'broken' });
    expect(k.bracket).toEqual([50, 100]);
    expect(k.stable_above_knee.map((p) => p.step)).toEqual([2]);
    expect(nextBisectionValue(k)).toBe(75);
  });

  it('never cites an incomplete (cut-short) stable step; an incomplete failed one still marks the limit', () => {
    const steps = [
      makeStep(0, { params: { connections: 1000 } }),
      makeStep(1, { params: { connections: 2000 }, complete: false }),
    ];
    const k = findKnee(steps, 'connections_target');
    expect(k.safe?.step).toBe(0);
    expect(k.last_stable?.step).toBe(0);
    expect(k.first_unsafe).toBeNull();
    const failed = findKnee(
      [
        ...steps,
        makeStep(2, { params: { connections: 3000 }, complete: false, verdict: 'broken' }),
      ],
      'connections_target',
    );
    expect(failed.safe?.step).toBe(0);
    expect(failed.first_broken?.step).toBe(2);
  });

  it('a search step measured while the server was still recovering, or that a longer run replaced, is no evidence', () => {
    const steps = [
      makeStep(1, { params: { connections: 1000 } }),
      makeStep(2, { params: { connections: 4000 }, verdict: 'broken' }),
      makeStep(3, {
        params: { connections: 2000 },
        verdict: 'broken',
        search: { recovered: false, recovery_wait_ms: 30_000, notes: [] },
      }),
      makeStep(4, {
        params: { connections: 3000 },
        verdict: 'degraded',
        search: { recovered: true, recovery_wait_ms: 0, notes: [], superseded_by: 5 },
      }),
      makeStep(5, {
        params: { connections: 3000 },
        search: { recovered: true, recovery_wait_ms: 0, notes: [] },
      }),
    ];
    const k = findKnee(steps, 'connections_target');
    expect(k.safe?.step).toBe(5);
    expect(k.bracket).toEqual([3000, 4000]);
    // Stable while recovering is inconclusive too: measured against a backlog, it is run again.
    const stableRecovering = findKnee(
      [
        ...steps.slice(0, 2),
        makeStep(3, {
          params: { connections: 2000 },
          search: { recovered: false, recovery_wait_ms: 30_000, notes: [] },
        }),
      ],
      'connections_target',
    );
    expect(stableRecovering.safe?.step).toBe(1);
  });

  it('skips generator-bound steps and reports them above the safe step', () => {
    const steps = [
      makeStep(0, { params: { connections: 1000 } }),
      makeStep(1, { params: { connections: 2000 } }),
      makeStep(2, { params: { connections: 4000 }, verdict: 'generator-bound' }),
    ];
    const k = findKnee(steps, 'connections_target');
    expect(k.safe?.value).toBe(2000);
    expect(k.first_unsafe).toBeNull();
    expect(k.generator_bound_above.map((p) => p.step)).toEqual([2]);
  });

  it('never uses an inconclusive step: neither safe nor a failure', () => {
    const steps = [
      makeStep(0, { params: { connections: 1000 } }),
      makeStep(1, { params: { connections: 2000 }, verdict: 'inconclusive' }),
      makeStep(2, { params: { connections: 4000 }, verdict: 'inconclusive' }),
    ];
    const k = findKnee(steps, 'connections_target');
    expect(k.safe?.value).toBe(1000);
    expect(k.first_unsafe).toBeNull();
    expect(k.last_stable?.value).toBe(1000);
  });

  it('is conservative on a value that was both stable and failed, unless another driver explains the failure', () => {
    const steps = loadRun('seed-002-s5-presence').steps; // 8 members: stable at 10 %, degraded at 25 % and 70 %
    expect(findKnee(steps, 'presence_members').safe).toBeNull();
    const k = findKnee(steps, 'presence_members', { attributedElsewhere: new Set([1, 2]) });
    expect(k.safe).toEqual({ step: 0, value: 8, verdict: 'stable' });
    expect(k.first_unsafe).toEqual({ step: 3, value: 10_000, verdict: 'broken' });
    expect(k.attributed_elsewhere.map((p) => p.step)).toEqual([1, 2]);
  });

  it('a bracket narrower than the resolution needs no more bisection', () => {
    const steps = [
      makeStep(0, { params: { send_rate: 100 } }),
      makeStep(1, { params: { send_rate: 103 }, verdict: 'broken' }),
    ];
    expect(nextBisectionValue(findKnee(steps, 'send_rate'))).toBeNull();
  });
});
