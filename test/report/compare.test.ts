import { describe, expect, it } from 'vitest';
import { compareRuns } from '../../src/report/compare-runs.js';
import { renderComparison } from '../../src/report/compare.js';
import { loadRun, makeRun, makeStep } from '../fixtures/index.js';

describe('compareRuns', () => {
  const c = compareRuns(loadRun('run-a'), loadRun('run-b'));

  it('matches steps by index and computes B − A, relative change and better/worse', () => {
    expect(c.steps.map((s) => s.index)).toEqual([0, 1, 2, 3]);
    const p95 = c.steps[2].cells.find((x) => x.label === 'first receive p95')!;
    expect(p95).toEqual({
      label: 'first receive p95',
      a: 30,
      b: 80,
      delta: 50,
      relative: 50 / 30,
      judgement: 'worse',
    });
    const delivery = c.steps[3].cells.find((x) => x.label === 'delivery')!;
    expect(delivery.judgement).toBe('worse');
    expect(delivery.delta).toBeCloseTo(-0.0588, 4);
  });

  it('says why a run or a step is not like for like', () => {
    expect(c.caveats).toEqual([
      'step count differs: 5 → 4; only steps present in both are compared',
      'run B is aborted (server closed every socket (1006) during step 3)',
    ]);
    expect(c.steps[3].untrusted).toEqual(['B is incomplete (cut short)']);
    const a = makeRun('broadcast-public', [makeStep(0)]);
    const b = makeRun('broadcast-public', [makeStep(0, { params: { send_rate: 20 } })]);
    b.target.instance = { vcpus: 4, memory_mb: 8192 };
    const d = compareRuns(a, b);
    expect(d.caveats).toEqual([
      'instance differs: {"vcpus":2,"memory_mb":4096} → {"vcpus":4,"memory_mb":8192}',
    ]);
    expect(d.steps[0].params_differ).toEqual(['send_rate 10 → 20']);
  });

  it('a missing figure on either side has no difference (null, not 0)', () => {
    const a = makeRun('broadcast-public', [makeStep(0, { server: { cpu_pct: null } })]);
    const cell = compareRuns(a, a).steps[0].cells.find((x) => x.label === 'server CPU')!;
    expect(cell).toEqual({
      label: 'server CPU',
      a: null,
      b: null,
      delta: null,
      relative: null,
      judgement: null,
    });
  });
});

describe('renderComparison', () => {
  const md = renderComparison(loadRun('run-a'), loadRun('run-b'));

  it('prints both runs, caveats, per-step tables with differences', () => {
    expect(md).toContain('# rtcap compare: A 2025-01-02T00-00-00Z-a vs B 2025-01-03T00-00-00Z-b');
    expect(md).toContain('## Caveats');
    expect(md).toContain('| first receive p95 | 30 ms | 80 ms | +50 ms (+166.7%) | worse |');
    expect(md).toContain('| verdict | degraded | broken | degraded → broken |  |');
    expect(md).toContain('| delivery | 100% | 94.12% | −5.88 pp | worse |');
    expect(md).toContain('| server CPU | 39.0% | 47.0% | +8.0 pp | worse |');
    expect(md).toContain(
      'B is incomplete (cut short): differences in this step say nothing certain about the server.',
    );
  });

  it('puts the capacity rows and fits of both runs side by side', () => {
    expect(md).toContain(
      '| Public broadcast — deliveries/s | ≤ 19,900/s (latency SLO) | ≤ 19,900/s (CPU) |',
    );
    expect(md).toContain('- A: CPU ≈ 3.0 % + 1.80 pp × deliveries/s ÷ 1,000 (R² 1.00, 3 steps)');
    expect(md).toContain('- B: CPU ≈ 3.0 % + 2.20 pp × deliveries/s ÷ 1,000 (R² 1.00, 3 steps)');
  });
});
