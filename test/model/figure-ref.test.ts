import { describe, expect, it } from 'vitest';
import {
  CAPACITY_ROW_IDS,
  figureText,
  parseFigure,
  selectSteps,
} from '../../src/model/figure-ref.js';
import { makeStep } from '../fixtures/index.js';

describe('parseFigure / figureText', () => {
  it('round-trips the canonical form', () => {
    for (const t of [
      'p95_ms',
      'p95_ms{step:3}',
      'p95_ms{step:"20k conns",scenario:presence}',
      'delivery_rate{step:peak,step:2}',
      'capacity.join_rate',
    ]) {
      expect(figureText(parseFigure(t))).toBe(t);
    }
    expect(figureText(parseFigure("p95_ms{ step : 'a b' , scenario: mixed }"))).toBe(
      'p95_ms{step:"a b",scenario:mixed}',
    );
  });

  it('the capacity row ids are the twelve §7 rows', () => {
    expect(CAPACITY_ROW_IDS).toHaveLength(12);
    expect(CAPACITY_ROW_IDS).toContain('public_connections');
  });

  it('names what it cannot read', () => {
    expect(() => parseFigure('p95_ms{step:}')).toThrow(/cannot read the selector|has no value/);
    expect(() => parseFigure('p95_ms{step:3')).toThrow(/must end with "}"/);
  });
});

describe('selectSteps', () => {
  const steps = [makeStep(1, { label: 'a' }), makeStep(2, { label: 'b' })];
  it('by number and label, any of; a scenario that does not match is not applicable', () => {
    const ref = parseFigure('p95_ms{step:1,step:b}');
    if (ref.kind !== 'step') throw new Error('step figure expected');
    const sel = selectSteps(ref, steps, 'presence');
    expect(sel.applicable && sel.steps.map((s) => s.index)).toEqual([1, 2]);
    const other = parseFigure('p95_ms{scenario:mixed}');
    if (other.kind !== 'step') throw new Error('step figure expected');
    expect(selectSteps(other, steps, 'presence')).toEqual({
      applicable: false,
      why: 'the run is presence, the threshold selects mixed',
    });
    expect(selectSteps(other, steps).applicable).toBe(true);
  });
});
