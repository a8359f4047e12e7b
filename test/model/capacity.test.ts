import { describe, expect, it } from 'vitest';
import { CAPACITY_DIMENSIONS } from '../../src/model/capacity-dimensions.js';
import { capacityRow, capacityTable } from '../../src/model/capacity.js';
import { limitingFactorOfStep } from '../../src/model/step-limit.js';
import { DEFAULT_SAFE_LINES } from '../../src/model/capacity-row.js';
import { loadRun, makeRun, makeStep } from '../fixtures/index.js';

const dim = (id: string) => CAPACITY_DIMENSIONS.find((d) => d.id === id)!;

describe('capacity from the seed 002 figures', () => {
  it('§1.1 connections: the memory line reaches 85 % at 21,250, below the highest stable 24,000 (seed: 20,000)', () => {
    const rows = capacityTable(loadRun('seed-002-s1.1-connections'));
    const row = rows.find((r) => r.id === 'public_connections')!;
    expect(row.no).toBe(1);
    expect(row.value).toBeCloseTo(21_250, 6);
    expect(row.display).toBe('≤ 21,200');
    expect(row.limiting_factor).toBe('memory');
    expect(row.evidence_steps).toEqual([0, 1]);
    expect(row.evidence).toContain('reaches 85% at 21,250');
    expect(row.evidence).toContain('highest stable step 1 (24,000, stable, memory 91.6%)');
    // Connections and deliveries/s rose together in this sweep: both rows say so.
    expect(row.covaries_with).toEqual(['public_deliveries']);
  });

  it('§1.2 deliveries: the CPU line reaches 70 % at 26,798/s, below the highest stable 33,988/s (seed: 27,000)', () => {
    const rows = capacityTable(loadRun('seed-002-s1.2-deliveries'));
    expect(rows.map((r) => r.id)).toEqual(['public_deliveries']); // connections never varied
    const row = rows[0];
    expect(row.value).toBeCloseTo(26_798.0, 0);
    expect(row.display).toBe('≤ 26,700/s');
    expect(row.limiting_factor).toBe('CPU');
    expect(row.knee.safe?.step).toBe(3);
    expect(row.knee.first_unsafe?.step).toBe(4);
    expect(row.evidence).toContain('step 4 (40,000/s, degraded, CPU 95.0%, p95 4,500 ms)');
  });

  it('a safe line set higher than the data makes the highest stable step the limit, never more', () => {
    const rows = capacityTable(loadRun('seed-002-s1.2-deliveries'), {
      safe_lines: { cpu_pct: 95 },
    });
    expect(rows[0].value).toBe(33_988);
    expect(rows[0].limiting_factor).toBe('CPU'); // the next step ran at 95 % CPU
  });

  it('§4 join rate: 2 failed joins at 100/s stop the driver at 50/s (seed calls 100/s stable and says 60/s)', () => {
    const [row] = capacityTable(loadRun('seed-002-s4-join-rate'));
    expect(row.id).toBe('join_rate');
    expect(row.value).toBe(50);
    expect(row.limiting_factor).toBe('rejection');
    expect(row.evidence).toContain('predicted ceiling db_pool ÷ check time = 125/s × headroom 0.5');
  });

  it('§4 join rate: without the 100/s step the pool ceiling × headroom, 62.5/s, is the limit', () => {
    const run = loadRun('seed-002-s4-join-rate');
    run.steps = run.steps.filter((s) => s.index !== 1);
    const [row] = capacityTable(run);
    expect(row.value).toBe(62.5);
    expect(row.limiting_factor).toBe('auth pool');
    expect(row.display).toBe('≤ 62.5/s');
  });

  it('§2.1 private: each failure is charged to the driver that went beyond what was carried (seed: ≤ 6,000 sends/s, ≤ 17,000 deliveries/s)', () => {
    const rows = capacityTable(loadRun('seed-002-s2.1-private'));
    const sends = rows.find((r) => r.id === 'private_sends')!;
    const deliveries = rows.find((r) => r.id === 'private_deliveries')!;
    expect(sends.value).toBe(5000);
    expect(sends.knee.first_unsafe?.step).toBe(3);
    expect(sends.knee.attributed_elsewhere.map((p) => p.step)).toEqual([2]);
    expect(deliveries.value).toBe(17_200);
    expect(deliveries.knee.first_unsafe?.step).toBe(2);
    expect(deliveries.knee.attributed_elsewhere.map((p) => p.step)).toEqual([3]);
  });

  it('§3 payload: 10 KB carried, 100 KB could not be sent: bandwidth', () => {
    const [row] = capacityTable(loadRun('seed-002-s3-payload'));
    expect(row).toMatchObject({
      id: 'message_size',
      value: 10_240,
      display: '≤ 10 KB',
      limiting_factor: 'bandwidth',
    });
  });

  it('§5 presence: 8 members carried; deliveries 12,670/s before latency went over the SLO', () => {
    const rows = capacityTable(loadRun('seed-002-s5-presence'));
    expect(rows.find((r) => r.id === 'presence_members')).toMatchObject({
      value: 8,
      limiting_factor: 'memory',
    });
    expect(rows.find((r) => r.id === 'presence_deliveries')).toMatchObject({
      value: 12_670,
      limiting_factor: 'latency SLO',
    });
  });

  it('§6 CDC: 17,000 subscriptions carried, 18,000 broke twice', () => {
    const [row] = capacityTable(loadRun('seed-002-s6-postgres-changes'));
    expect(row).toMatchObject({
      id: 'cdc_subscribers',
      value: 17_000,
      display: '≤ 17,000',
      limiting_factor: 'delivery',
    });
  });
});

describe('capacityRow rules', () => {
  const sweep = (verdicts: string[], o: Parameters<typeof makeStep>[1] = {}) =>
    verdicts.map((v, i) =>
      makeStep(i, {
        ...o,
        params: { connections: 1000 * (i + 1) },
        connections: { joined: 1000 * (i + 1) },
        verdict: v as never,
        server: { mem_pct: 10 + 5 * i },
      }),
    );

  it('no limit reached: the highest measured step, said plainly', () => {
    const row = capacityRow(sweep(['stable', 'stable', 'stable']), dim('public_connections'));
    expect(row.value).toBe(3000);
    expect(row.limiting_factor).toBe('not reached');
    expect(row.display).toBe('≥ 3,000, no limit reached');
    expect(row.bound).toBe('lower');
    expect(row.rule).toBe('highest stable (lower bound)');
  });

  it("a fitted memory line at its safe line under a cgroup tighter than the instance: that cgroup's limit, a lower bound", () => {
    const steps = (memory_source: 'cgroup' | 'declared') =>
      [40, 70, 100].map((mem, i) =>
        makeStep(i, {
          params: { connections: 1000 * (i + 1) },
          connections: { joined: 1000 * (i + 1) },
          server: {
            mem_pct: mem,
            basis: { vcpus: 2, memory_mb: 512, source: 'affinity', memory_source },
          },
        }),
      );
    const ctx = { limit_context: { instance_memory_mb: 4096 } };
    const row = capacityRow(steps('cgroup'), dim('public_connections'), ctx);
    expect(row).toMatchObject({
      rule: 'safe-line fit',
      bound: 'lower',
      limit: { kind: 'environment', resource: 'memory cgroup', limit: 512 * 2 ** 20 },
      display: '≥ 2,500, environment limit above',
    });
    const own = capacityRow(steps('declared'), dim('public_connections'), ctx);
    expect(own).toMatchObject({
      bound: 'upper',
      limit: { kind: 'server-memory' },
      display: '≤ 2,500',
    });
  });

  it('generator-bound steps above are not capacity: the row says the server may carry more', () => {
    const row = capacityRow(
      sweep(['stable', 'stable', 'generator-bound']),
      dim('public_connections'),
    );
    expect(row.value).toBe(2000);
    expect(row.limiting_factor).toBe('generator');
    expect(row.display).toBe('≥ 2,000, generator-bound above');
    expect(row.bound).toBe('lower');
  });

  it('a server killed after a stable step: that step stands as a lower bound, never a limit of the load', () => {
    const gone =
      'the server went away: 1,000 of 1,000 connections dropped without a close frame (1006)';
    const steps = [
      makeStep(1, { params: { connections: 500 }, connections: { joined: 500 } }),
      makeStep(2, {
        params: { connections: 1000 },
        connections: { joined: 1000, disconnected: 1000 },
        verdict: 'broken',
        verdict_reasons: [gone, '1,000 connections disconnected'],
        complete: false,
      }),
    ];
    const row = capacityRow(steps, dim('public_connections'));
    expect(row).toMatchObject({
      value: 500,
      bound: 'lower',
      limit: { kind: 'server-gone', step: 2 },
      display: '≥ 500, server went away',
    });
    expect(row.evidence).toContain('then the server went away in step 2: no limit measured');
    // Killed in its first step: nothing is evidence, and nothing is called a limit.
    const none = capacityRow([steps[1]], dim('public_connections'));
    expect(none.evidence).toBe('no step counts as server evidence: the server went away in step 2');
  });

  it('no stable step: no value', () => {
    const row = capacityRow(sweep(['broken', 'broken']), dim('public_connections'));
    expect(row.value).toBeNull();
    expect(row.display).toBe('—');
    expect(row.limiting_factor).toBe('no stable step');
  });

  it('never above the highest stable step, even when the fit crosses higher', () => {
    // memory 10, 15, 20 % at 1k..3k: 85 % is crossed at 18,000, far beyond what was measured.
    const row = capacityRow(sweep(['stable', 'stable', 'broken']), dim('public_connections'));
    expect(row.fit_crossing).toBeCloseTo(16_000, 6);
    expect(row.value).toBe(2000);
    expect(row.limiting_factor).toBe('delivery');
  });

  it('a run whose driver never varied has no row', () => {
    const run = makeRun('broadcast-public', [makeStep(0)]);
    expect(capacityTable(run)).toEqual([]);
  });

  it('limiting factor: resource lines first, then what failed', () => {
    const safe = DEFAULT_SAFE_LINES;
    expect(
      limitingFactorOfStep(makeStep(0, { verdict: 'broken', server: { mem_pct: 90 } }), safe),
    ).toBe('memory');
    expect(
      limitingFactorOfStep(makeStep(0, { verdict: 'degraded', server: { cpu_pct: 75 } }), safe),
    ).toBe('CPU');
    // Failed connections are a rejection only when the server said so (a reason it gave).
    expect(
      limitingFactorOfStep(makeStep(0, { verdict: 'broken', connections: { failed: 3 } }), safe),
    ).toBe('join SLO');
    const refused = makeStep(0, {
      verdict: 'broken',
      connections: { failed: 3 },
      errors: { 'join refused: too_many_joins': 3 },
    });
    expect(limitingFactorOfStep(refused, safe)).toBe('rejection');
    expect(
      limitingFactorOfStep(
        makeStep(0, { verdict: 'broken', connections: { disconnected: 3 } }),
        safe,
      ),
    ).toBe('disconnects');
    expect(limitingFactorOfStep(makeStep(0, { verdict: 'broken' }), safe)).toBe('delivery');
    expect(limitingFactorOfStep(makeStep(0, { verdict: 'degraded' }), safe)).toBe('latency SLO');
    expect(limitingFactorOfStep(makeStep(0, { verdict: 'generator-bound' }), safe)).toBe(
      'generator',
    );
  });
});
