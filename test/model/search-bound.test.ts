import { describe, expect, it } from 'vitest';
import { capacityTable } from '../../src/model/capacity.js';
import { limitWords } from '../../src/model/limit.js';
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

describe('a search stopped because the path it loads did not recover', () => {
  const changes = (index: number, perS: number, verdict: 'stable' | 'degraded' | 'broken') =>
    makeStep(index, {
      params: { connections: 10, insert_rate: perS },
      verdict,
      extra: { changes_per_s: perS },
      ...(verdict === 'degraded' ? { verdict_reasons: ['p95 4,227 ms > 1,000 ms'] } : {}),
      ...(verdict === 'broken' ? { verdict_reasons: ['delivery 0.00% < 99.00%'] } : {}),
    });
  const stop = (afterStep: number, afterText: string) => ({
    mode: 'search',
    stop_kind: 'not-recovered',
    not_recovered: {
      after_step: afterStep,
      after_text: afterText,
      path: 'postgres-changes',
      wait_s: 30,
    },
  });
  const run = (steps: ReturnType<typeof changes>[]) => ({
    profile: { scenario: 'postgres-changes' },
    steps,
  });
  const row = (steps: ReturnType<typeof changes>[], afterStep: number, afterText: string) =>
    applySearchStop(capacityTable(run(steps)), stop(afterStep, afterText)).find(
      (r) => r.id === 'cdc_changes',
    )!;

  it('the step it did not recover from is the row’s limit, at the last stable step', () => {
    const r = row([changes(1, 250, 'stable'), changes(2, 500, 'broken')], 2, 'insert_rate 500/s');
    expect(r).toMatchObject({
      value: 250,
      bound: 'upper',
      display: '≤ 250/s',
      limiting_factor: 'no recovery',
      limit: {
        kind: 'no-recovery',
        path: 'change pipeline',
        after: 'insert_rate 500/s',
        wait_s: 30,
      },
    });
    expect(limitWords(r.limit)).toBe(
      'change pipeline did not recover after insert_rate 500/s (within 30 s)',
    );
    expect(r.evidence).toMatch(/\(step 2\): the search stopped there$/);
    expect(r.evidence).not.toMatch(/^delivery/);
  });

  it('a lower step that already failed keeps its own limit; the stop is said beside it', () => {
    const r = row(
      [changes(1, 250, 'stable'), changes(2, 500, 'degraded'), changes(3, 2000, 'broken')],
      3,
      'insert_rate 2,000/s',
    );
    expect(r).toMatchObject({ value: 250, display: '≤ 250/s', limit: { kind: 'latency-slo' } });
    expect(r.evidence).toMatch(
      /change pipeline did not recover after insert_rate 2,000\/s \(within 30 s\) \(step 3\): the search stopped there$/,
    );
  });

  it('a row with no limit below the step it did not recover from is no longer a lower bound', () => {
    const r = row([changes(1, 250, 'stable'), changes(2, 500, 'stable')], 2, 'insert_rate 500/s');
    expect(r).toMatchObject({ value: 500, bound: 'upper', limit: { kind: 'no-recovery' } });
  });
});
