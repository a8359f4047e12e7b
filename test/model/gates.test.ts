import { describe, expect, it } from 'vitest';
import {
  evaluateFailOn,
  evaluateGate,
  judgePair,
  parseFailOn,
  parseGate,
} from '../../src/model/gates.js';
import { makeStep } from '../fixtures/index.js';

describe('parseGate', () => {
  it('reads direction, amount and unit', () => {
    expect(parseGate('p95_ms +10%')).toMatchObject({
      direction: 1,
      amount: 10,
      unit: 'pct',
      figure: { kind: 'step', metric: 'p95_ms' },
    });
    expect(parseGate('delivery_rate -0.1pp')).toMatchObject({
      direction: -1,
      amount: 0.1,
      unit: 'pp',
    });
    expect(parseGate('p95_ms +5ms')).toMatchObject({ direction: 1, amount: 5, unit: 'abs' });
    expect(parseGate('delivered_per_s -500/s')).toMatchObject({
      direction: -1,
      amount: 500,
      unit: 'abs',
    });
    expect(parseGate('errors +0')).toMatchObject({ amount: 0, unit: 'abs' });
    expect(parseGate('p95_ms{step:2} +10%').figure).toMatchObject({
      steps: [{ by: 'index', index: 2 }],
    });
    expect(parseGate('capacity.join_rate -10%').figure).toEqual({
      kind: 'capacity',
      row: 'join_rate',
    });
  });

  it('refuses units that do not fit the figure, naming it', () => {
    expect(() => parseGate('p95_ms +5pp')).toThrow(
      /"pp" \(percentage points\) applies to ratio or _pct metrics, not p95_ms/,
    );
    expect(() => parseGate('p95_ms +5/s')).toThrow(
      /p95_ms is not measured in \/s \(its unit: ms\)/,
    );
    expect(() => parseGate('delivery_rate -0.001')).toThrow(
      /write a change of delivery_rate in pp/,
    );
    expect(() => parseGate('p95_ms 10%')).toThrow(/expected "<metric> \+<n>%"/);
    expect(() => parseGate('p95 +10%')).toThrow(/unknown metric "p95"/);
  });
});

describe('judging a pair', () => {
  it('relative: more than the share of A in the regression direction fails; exactly at the limit passes', () => {
    const g = parseGate('p95_ms +10%');
    expect(judgePair(g, 1, 100, 120)).toEqual({
      step: 1,
      a: 100,
      b: 120,
      pass: false,
      text: '100 → 120 (+20, +20.0 %)',
    });
    expect(judgePair(g, 1, 100, 110).pass).toBe(true);
    expect(judgePair(g, 1, 0.3, 0.33).pass).toBe(true); // 10 % in floating point
    expect(judgePair(g, 1, 100, 50).pass).toBe(true); // faster is no regression
  });

  it('percentage points on a ratio; absolute in the figure unit; missing fails', () => {
    const pp = parseGate('delivery_rate -0.1pp');
    expect(judgePair(pp, 1, 1, 0.9985)).toMatchObject({
      pass: false,
      text: '1 → 0.9985 (−0.15 pp)',
    });
    expect(judgePair(pp, 1, 1, 0.9995).pass).toBe(true);
    const ms = parseGate('p95_ms +5ms');
    expect(judgePair(ms, 1, 100, 105).pass).toBe(true);
    expect(judgePair(ms, 1, 100, 105.5).pass).toBe(false);
    expect(judgePair(ms, 1, null, 100)).toMatchObject({ pass: false, text: 'not measured in A' });
  });
});

describe('gates on two runs', () => {
  const a = {
    scenario: 'broadcast-public',
    steps: [
      makeStep(1, { latency_ms: { p95: 100 } }),
      makeStep(2, { label: 'peak', latency_ms: { p95: 100 } }),
    ],
  };
  const b = {
    scenario: 'broadcast-public',
    steps: [
      makeStep(1, { latency_ms: { p95: 100 } }),
      makeStep(2, { label: 'peak', latency_ms: { p95: 120 } }),
    ],
  };

  it('fails naming the figure and the step', () => {
    const r = evaluateGate(parseGate('p95_ms +10%'), a, b);
    expect(r).toMatchObject({ pass: false, figure: 'p95_ms' });
    expect(r.summary).toBe('p95_ms +10%: FAIL — p95_ms step 2: 100 → 120 (+20, +20.0 %)');
    expect(evaluateGate(parseGate('p95_ms{step:1} +10%'), a, b).pass).toBe(true);
    expect(evaluateGate(parseGate('p95_ms{step:peak} +25%'), a, b).pass).toBe(true);
  });

  it('no step in both runs fails; capacity rows compare the tables', () => {
    expect(evaluateGate(parseGate('p95_ms{step:7} +10%'), a, b).summary).toBe(
      'p95_ms{step:7} +10%: FAIL — no step of p95_ms{step:7} in both runs',
    );
    const ca = { ...a, capacity: { public_connections: 20_000 } };
    expect(
      evaluateGate(parseGate('capacity.public_connections -5%'), ca, {
        ...b,
        capacity: { public_connections: 18_000 },
      }),
    ).toMatchObject({ pass: false, figure: 'capacity.public_connections' });
    expect(
      evaluateGate(parseGate('capacity.public_connections -5%'), ca, {
        ...b,
        capacity: { public_connections: 19_500 },
      }).pass,
    ).toBe(true);
    expect(evaluateGate(parseGate('capacity.public_connections -5%'), ca, b).pass).toBe(false);
  });

  it('--fail-on takes gates and absolute thresholds (judged on B)', () => {
    expect(parseFailOn('p95_ms < 200')).toEqual({ kind: 'threshold', expression: 'p95_ms < 200' });
    const r = evaluateFailOn(['p95_ms < 110', 'delivery_rate -0.1pp'], a, b);
    expect(r.pass).toBe(false);
    expect(r.results.map((x) => [x.figure, x.pass])).toEqual([
      ['p95_ms', false],
      ['delivery_rate', true],
    ]);
    expect(r.results[0].summary).toBe('p95_ms < 110: FAIL — step 2: 120 (on B)');
  });
});
