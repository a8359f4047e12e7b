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

  it("the server's memory cgroup tighter than the declared instance: named as its row and the live line name it", () => {
    const full = (memory_mb: number) =>
      makeStep(1, {
        verdict: 'broken',
        verdict_reasons: ['server memory safe line: 91.0% ≥ 85%'],
        server: {
          mem_pct: 91,
          basis: { vcpus: 2, memory_mb, source: 'affinity', memory_source: 'cgroup' },
        },
      });
    const ctx = { builtin: true, instance_memory_mb: 4096 };
    expect(withLimitNamed(full(512), ctx).verdict_reasons).toEqual([
      'environment limit: server process memory cgroup limit 512 MB',
      'server memory safe line: 91.0% ≥ 85%',
    ]);
    // A cgroup as large as the instance is the instance's own memory: its safe line, no limit of
    // this machine (the capacity row reads it so too).
    const large = full(8192);
    expect(withLimitNamed(large, ctx)).toBe(large);
  });

  it('below the limit, or a step that did not fail: unchanged', () => {
    const below = atLimit('broken', 12_000);
    expect(withLimitNamed(below, {})).toBe(below);
    const stable = atLimit('stable', 19_995);
    expect(withLimitNamed(stable, {})).toBe(stable);
  });
});
