/**
 * buildStepResult against collected data whose true counts are known (no sockets): the
 * figures it assembles from run/figures and the verdict they lead to.
 */
import { describe, expect, it } from 'vitest';
import { buildStepResult } from '../../../src/run/figures/step-result.js';
import { kindStream } from '../../../src/scenarios/types.js';
import { inputs, sends } from '../../support/step-inputs.js';

describe('buildStepResult', () => {
  it('a step whose secondary kind fell behind is generator-bound and names that kind', () => {
    const b = sends(kindStream('broadcast', 0), 20, 100);
    // Presence: 20 due over the window, every one made 2.5 s late, so the last 14 after the
    // window's end + 1 s.
    const p = sends(kindStream('presence', 0), 20, 100, 2500);
    const step = buildStepResult(inputs(b, p));
    expect(step.messages).toMatchObject({ sent: 20, expected: 20, received: 20, lost: 0 });
    expect(step.generator.offered_by_part).toEqual({ broadcast: 1, presence: 0.3, joins: 1 });
    expect(step.generator.offered_ratio).toBe(0.3);
    expect(step.verdict).toBe('generator-bound');
    expect(step.verdict_reasons[0]).toContain('behind: presence 30.00%');
  });

  it('with every kind on schedule the same step is stable', () => {
    const step = buildStepResult(
      inputs(sends(kindStream('broadcast', 0), 20, 100), sends(kindStream('presence', 0), 20, 100)),
    );
    expect(step.generator.offered_by_part).toEqual({ broadcast: 1, presence: 1, joins: 1 });
    expect(step.verdict).toBe('stable');
  });
});
