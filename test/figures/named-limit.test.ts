import { describe, expect, it } from 'vitest';
import { withLimitNamed } from '../../src/figures/named-limit.js';
import { makeStep } from '../fixtures/index.js';

describe('a limit of this machine named first in the step', () => {
  const atLimit = (verdict: 'broken' | 'stable', max: number) =>
    makeStep(1, {
      verdict,
      verdict_reasons: [
        'incomplete (cut short in the ramp: x): figures cover only what ran',
        '1,020 connections failed or were rejected',
      ],
      connections: { failed: 1020 },
      server: { open_files: { max, limit: 20_000, pid: 7 } },
    });

  it("the server at its open-file limit: the row's words first, after the incomplete label", () => {
    expect(withLimitNamed(atLimit('broken', 19_995), {}).verdict_reasons).toEqual([
      'incomplete (cut short in the ramp: x): figures cover only what ran',
      'environment limit: server process open-file limit 20,000',
      '1,020 connections failed or were rejected',
    ]);
  });

  it('below the limit, or a step that did not fail: unchanged', () => {
    const below = atLimit('broken', 12_000);
    expect(withLimitNamed(below, {})).toBe(below);
    const stable = atLimit('stable', 19_995);
    expect(withLimitNamed(stable, {})).toBe(stable);
  });
});
