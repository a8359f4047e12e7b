import { describe, expect, it } from 'vitest';
import { analyzeRun } from '../../src/model/analysis.js';
import { limitWords } from '../../src/model/limit.js';
import { searchedDimension } from '../../src/model/searched-row.js';
import type { RunResult } from '../../src/result/result.js';
import { makeRun, makeStep } from '../fixtures/index.js';
import {
  firstValueGeneratorBoundSearch,
  generatorBoundStep,
} from '../support/generator-bound-steps.js';

const search = (driver: string) => ({ mode: 'search', driver });

/** A public-broadcast step of `n` connections at 1 message/s (deliveries rise with them). */
function connStep(i: number, n: number, o: Parameters<typeof makeStep>[1] = {}) {
  return makeStep(i, {
    params: { connections: n, send_rate: 1, duration_s: 10 },
    connections: { target: n, opened: n, joined: n, open_at_end: n },
    messages: { expected: n * 10, received: n * 10 },
    ...o,
  });
}

function searchedRun(scenario: string, steps: RunResult['steps'], driver: string): RunResult {
  return { ...makeRun(scenario, steps), sweep: search(driver) } as RunResult;
}

describe('searchedDimension', () => {
  it('names the row a search measures, and none for a run that is no search', () => {
    const run = (scenario: string, driver: string) => ({
      profile: { scenario },
      sweep: search(driver),
    });
    expect(searchedDimension(run('broadcast-public', 'connections'))?.id).toBe(
      'public_connections',
    );
    expect(searchedDimension(run('broadcast-public', 'send_rate'))?.id).toBe('public_deliveries');
    expect(searchedDimension(run('broadcast-private', 'members'))?.id).toBe('private_deliveries');
    expect(searchedDimension(run('broadcast-private', 'room_send_rate'))?.id).toBe('private_sends');
    expect(searchedDimension(run('presence', 'update_share'))?.id).toBe('presence_deliveries');
    expect(searchedDimension(run('postgres-changes', 'insert_rate'))?.id).toBe('cdc_changes');
    expect(
      searchedDimension({
        profile: { scenario: 'broadcast-public' },
        sweep: { mode: 'values', driver: 'connections' },
      }),
    ).toBeNull();
    expect(searchedDimension({ profile: { scenario: 'broadcast-public' } })).toBeNull();
    expect(searchedDimension(run('mixed', 'connections'))).toBeNull();
  });
});

describe('a searched run speaks for its own row', () => {
  const steps = [
    connStep(1, 2000),
    connStep(2, 4000),
    connStep(3, 8000, { verdict: 'broken', verdict_reasons: ['delivery 90.00% < SLO 100%'] }),
  ];

  it('a connections search gives row 1 alone, with its own knee and limit', () => {
    const rows = analyzeRun(searchedRun('broadcast-public', steps, 'connections')).capacity;
    expect(rows.map((r) => r.id)).toEqual(['public_connections']);
    expect(rows[0]).toMatchObject({
      value: 4000,
      bound: 'upper',
      limit: { kind: 'delivery' },
      covaries_with: [],
    });
    // The same steps without a search speak for both rows their steps varied.
    const plain = analyzeRun(makeRun('broadcast-public', steps)).capacity;
    expect(plain.map((r) => r.id).sort()).toEqual(['public_connections', 'public_deliveries']);
  });

  it('one stable value and then generator-bound: "≥ X, generator-bound above", the figure named', () => {
    const run = searchedRun(
      'write-only',
      [
        makeStep(1, { params: { send_rate: 2000, duration_s: 10 }, rates: { acked_per_s: 2000 } }),
        ...[2, 3].map((i) => generatorBoundStep(i, 4000, 400)),
      ],
      'send_rate',
    );
    const [row] = analyzeRun(run).capacity;
    expect(row).toMatchObject({
      id: 'write_only_sends',
      value: 2000,
      bound: 'lower',
      display: '≥ 2,000/s, generator-bound above',
      limit: { kind: 'generator-bound', figure: 'event-loop lag p99', value: 400, limit: 50 },
    });
  });

  it('a first value already generator-bound reads generator-bound with its figure and that value, no number', () => {
    const [row] = analyzeRun(firstValueGeneratorBoundSearch()).capacity;
    expect(row).toMatchObject({
      id: 'write_only_sends',
      value: null,
      bound: 'lower',
      limiting_factor: 'generator',
      display: '— generator-bound at the first value, send_rate 2,000',
      evidence_steps: [1],
    });
    expect(limitWords(row.limit)).toBe(
      'generator-bound: generator event-loop lag p99 559 ms > 50 ms',
    );
    expect(row.evidence).toContain('generator-bound on all 2 tries');
  });
});
