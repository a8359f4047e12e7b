import { describe, expect, it } from 'vitest';
import { capacityTable } from '../../src/model/capacity.js';
import { applySearchStop } from '../../src/model/search-bound.js';
import { makeStep } from '../fixtures/index.js';

const run = {
  profile: { scenario: 'broadcast-public' },
  steps: [
    makeStep(1, { params: { connections: 1000 } }),
    makeStep(2, {
      params: { connections: 2000 },
      connections: { target: 2000, opened: 2000, joined: 2000, open_at_end: 2000 },
    }),
  ],
};

describe('applySearchStop', () => {
  it('a search that spent its budget or ran to sweep.max says so on the rows that reached no limit', () => {
    const rows = capacityTable(run);
    const row = rows.find((r) => r.id === 'public_connections')!;
    expect(row).toMatchObject({
      bound: 'lower',
      limit: { kind: 'range-end' },
      display: '≥ 2,000, no limit reached',
    });
    const budget = applySearchStop(rows, {
      mode: 'search',
      stop_kind: 'budget-spent',
      budget_s: 240,
    }).find((r) => r.id === 'public_connections')!;
    expect(budget).toMatchObject({
      bound: 'lower',
      limiting_factor: 'budget spent',
      limit: { kind: 'budget-spent', budget_s: 240 },
      display: '≥ 2,000, budget spent',
    });
    expect(budget.evidence).toMatch(/spent its budget \(240 s\) before it reached a limit$/);
    const end = applySearchStop(rows, { mode: 'search', stop_kind: 'range-end' }).find(
      (r) => r.id === 'public_connections',
    )!;
    expect(end).toMatchObject({ limit: { kind: 'range-end' }, display: '≥ 2,000, range end' });
  });

  it('leaves limits, explicit-value sweeps and searches that found the knee alone', () => {
    const rows = capacityTable(run);
    expect(applySearchStop(rows, { mode: 'values', stop_kind: 'budget-spent' })).toEqual(rows);
    expect(applySearchStop(rows, { mode: 'search', stop_kind: 'knee' })).toEqual(rows);
    expect(applySearchStop(rows, undefined)).toEqual(rows);
    const limited = capacityTable({
      ...run,
      steps: [...run.steps, makeStep(3, { params: { connections: 4000 }, verdict: 'broken' })],
    });
    expect(applySearchStop(limited, { mode: 'search', stop_kind: 'budget-spent' })).toEqual(
      limited,
    );
  });
});
