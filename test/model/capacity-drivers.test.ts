import { describe, expect, it } from 'vitest';
import { CAPACITY_DIMENSIONS } from '../../src/model/capacity-dimensions.js';
import { attributedElsewhere, driverVaried, sameOrder } from '../../src/model/capacity-drivers.js';
import { makeStep } from '../fixtures/index.js';

const dim = (id: string) => CAPACITY_DIMENSIONS.find((d) => d.id === id)!;

/** A private room sweep: connections × send rate per step, with its verdict. */
const step = (i: number, connections: number, sendRate: number, verdict: string) =>
  makeStep(i, { params: { connections, send_rate: sendRate }, verdict: verdict as never });

describe('driverVaried', () => {
  it('two values on judged steps: measured; a generator-bound step is no server evidence', () => {
    expect(driverVaried([step(0, 100, 1, 'stable'), step(1, 200, 1, 'broken')], 'send_rate')).toBe(
      false,
    );
    expect(
      driverVaried([step(0, 100, 1, 'stable'), step(1, 200, 1, 'broken')], 'connections_target'),
    ).toBe(true);
    expect(
      driverVaried(
        [step(0, 100, 1, 'stable'), step(1, 200, 1, 'generator-bound')],
        'connections_target',
      ),
    ).toBe(false);
  });
});

describe('sameOrder', () => {
  it('drivers that rose together on every pair of judged steps', () => {
    const together = [step(0, 100, 1, 'stable'), step(1, 200, 2, 'stable')];
    expect(sameOrder(together, 'connections_target', 'send_rate')).toBe(true);
    const crossed = [...together, step(2, 300, 1, 'stable')];
    expect(sameOrder(crossed, 'connections_target', 'send_rate')).toBe(false);
    expect(sameOrder([together[0]], 'connections_target', 'send_rate')).toBe(false);
  });
});

describe('attributedElsewhere', () => {
  it('a failure within what this driver carried, beyond what another carried, is the other’s', () => {
    const steps = [
      step(0, 100, 10, 'stable'),
      step(1, 400, 5, 'stable'),
      step(2, 200, 40, 'broken'), // connections within 400 carried, sends beyond 10: sends'
      step(3, 800, 5, 'broken'), // connections beyond what was carried: its own
    ];
    const own = dim('private_connections');
    expect([...attributedElsewhere(steps, own, [dim('private_sends')])]).toEqual([2]);
    // With no other dimension to blame, every failure counts.
    expect([...attributedElsewhere(steps, own, [])]).toEqual([]);
  });
});
