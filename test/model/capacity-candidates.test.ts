import { describe, expect, it } from 'vitest';
import {
  displayOf,
  noStableRow,
  poolCandidate,
  type Candidate,
} from '../../src/model/capacity-candidates.js';
import { CAPACITY_DIMENSIONS } from '../../src/model/capacity-dimensions.js';
import { makeStep } from '../fixtures/index.js';

const dim = (id: string) => CAPACITY_DIMENSIONS.find((d) => d.id === id)!;
const candidate = (limit: Candidate['limit']): Candidate => ({
  value: 1,
  limit,
  rule: 'knee',
  evidence: '',
  steps: [],
});

describe('displayOf', () => {
  it('an upper bound is "≤"; a lower bound says what stopped the measurement', () => {
    const cpu = { kind: 'server-cpu', cpu_pct: null, safe_pct: 70 } as const;
    expect(displayOf('21,200', candidate(cpu))).toBe('≤ 21,200');
    expect(displayOf('3,000', candidate({ kind: 'range-end' }))).toBe('≥ 3,000, no limit reached');
    const generator = { kind: 'generator-bound', figure: 'CPU', value: null, limit: null } as const;
    expect(displayOf('2,000', candidate(generator))).toBe('≥ 2,000, generator-bound above');
    expect(displayOf('50/s', candidate({ kind: 'budget-spent', budget_s: 600 }))).toBe(
      '≥ 50/s, budget spent',
    );
  });
});

describe('poolCandidate', () => {
  it("the lowest step's db_pool ÷ check time, times the headroom", () => {
    const steps = [
      makeStep(0, { extra: { db_pool: 1, auth_check_ms_p50: 100 } }),
      makeStep(1, { extra: { db_pool: 1, auth_check_ms_p50: 200 } }),
    ];
    expect(poolCandidate(steps, 0.5)).toMatchObject({
      value: 2.5,
      rule: 'pool headroom',
      limit: { kind: 'auth-pool', ceiling_per_s: 5, headroom: 0.5 },
    });
    expect(poolCandidate([makeStep(0)], 0.5)).toBeNull();
  });
});

describe('noStableRow', () => {
  it('the lowest judged step already failed: no value, that step named', () => {
    const steps = [
      makeStep(0, { params: { connections: 2000 }, verdict: 'broken' }),
      makeStep(1, { params: { connections: 1000 }, verdict: 'broken' }),
    ];
    const row = noStableRow(steps, dim('public_connections'));
    expect(row).toMatchObject({ value: null, display: '—', rule: 'none', evidence_steps: [1] });
    expect(row.evidence).toMatch(/^no stable step; the lowest, step 1 \(1,000, broken/);
    expect(noStableRow([], dim('public_connections')).evidence).toBe(
      'no step counts as server evidence',
    );
  });
});
