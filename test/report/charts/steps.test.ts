import { describe, expect, it } from 'vitest';
import { primaryDriver, verdictScatter } from '../../../src/report/charts/steps.js';
import { loadRun, makeRun, makeStep } from '../../fixtures/index.js';

describe('primaryDriver', () => {
  it('the load axis is the §7 driver that varied most', () => {
    expect(primaryDriver(loadRun('seed-002-s1.2-deliveries'))).toEqual({
      metric: 'delivered_per_s',
      label: 'deliveries/s',
    });
    expect(primaryDriver(loadRun('seed-002-s4-join-rate'))).toEqual({
      metric: 'join_rate',
      label: 'Connection / channel join rate',
    });
    // One step: the first figure measured, not the step number.
    expect(primaryDriver(makeRun('broadcast-public', [makeStep(0)]))).toEqual({
      metric: 'connections',
      label: 'concurrent connections',
    });
    expect(primaryDriver(makeRun('mixed', [makeStep(0)]))).toEqual({ metric: null, label: 'step' });
  });
});

describe('verdictScatter', () => {
  it('one series per verdict present; a point with a null figure is a gap, not a zero', () => {
    const steps = [
      makeStep(0, { verdict: 'stable' }),
      makeStep(1, { verdict: 'generator-bound' }),
      makeStep(2, { verdict: 'stable', delivery_rate: null }),
    ];
    const series = verdictScatter(
      steps,
      (s) => s.index,
      (s) => s.delivery_rate,
    );
    expect(series.map((s) => [s.name, s.data])).toEqual([
      ['stable', [[0, 1]]],
      ['generator-bound (not capacity)', [[1, 1]]],
    ]);
    expect(series[1].itemStyle).toMatchObject({ color: 'transparent', borderWidth: 2 });
  });
});
