import { describe, expect, it } from 'vitest';
import {
  adviseConfig,
  dbPoolForJoinRate,
  presenceQuotaNeeded,
  presenceUpdateRateLimit,
} from '../../src/model/advice.js';
import { capacityTable } from '../../src/model/capacity.js';
import { analyzeRun, analysisOptionsFromProfile } from '../../src/model/analysis.js';
import { loadRun } from '../fixtures/index.js';

const advice = (name: string, opts = {}) => {
  const run = loadRun(name);
  return adviseConfig(run.steps, capacityTable(run), opts);
};

describe('§8 configuration advice', () => {
  it('max_events_per_second 26,000 from the 26,798/s CPU safe line: at most 5 % below it (the seed rounds to 25,000)', () => {
    const [row] = advice('seed-002-s1.2-deliveries');
    expect(row).toMatchObject({
      key: 'max_events_per_second',
      value: 26_000,
      display: '26,000',
      bound: 'upper',
    });
    expect(row.reason).toContain('measured safe line 26,798/s (CPU); rounded down at most 5 %');
  });

  it('no limit reached: "≥ X: measure higher before setting a cap", never a cap below what was carried', () => {
    const run = loadRun('seed-002-s1.2-deliveries');
    // Only the stable steps: the deliveries row becomes a lower bound at 33,988/s.
    const steps = run.steps.filter((s) => s.verdict === 'stable');
    const rows = capacityTable({ ...run, steps }, { safe_lines: { cpu_pct: 100 } });
    expect(rows[0]).toMatchObject({ id: 'public_deliveries', bound: 'lower' });
    const [row] = adviseConfig(steps, rows);
    expect(row).toMatchObject({
      key: 'max_events_per_second',
      bound: 'lower',
      display: `≥ ${Math.floor(rows[0].value!).toLocaleString('en-US')}: measure higher before setting a cap`,
    });
    expect(row.value).toBe(rows[0].value);
    expect(row.reason).toContain('no server limit reached');
  });

  it('no max_events_per_second from a connection sweep limited by memory', () => {
    expect(advice('seed-002-s1.1-connections')).toEqual([]);
  });

  it('db_pool: seed §4 pool 10 at 80 ms is a 125/s ceiling, 62.5/s red line; 180/s wanted needs 29', () => {
    const [keep] = advice('seed-002-s4-join-rate');
    expect(keep).toMatchObject({ key: 'db_pool', value: 10 });
    expect(keep.reason).toContain('ceiling 10 ÷ 80 ms ≈ 125/s');
    expect(keep.benefit).toBe('red line 62.5/s at headroom 0.5');
    const [size] = advice('seed-002-s4-join-rate', { wanted_join_rate_per_s: 180 });
    expect(size).toMatchObject({ key: 'db_pool', value: 29 });
    expect(size.benefit).toBe('join ceiling 125/s → 363/s, red line 181/s');
  });

  it('dbPoolForJoinRate: rate ÷ headroom × check time, rounded up; headroom 1 is the bare formula', () => {
    expect(dbPoolForJoinRate(180, 80)).toBe(29);
    expect(dbPoolForJoinRate(125, 80, 1)).toBe(10);
    expect(dbPoolForJoinRate(60, 80)).toBe(10); // 9.6 → 10: the seed's pool for its 60/s red line
  });

  it('subs_pool_size: 17,743 of 18,000 subscriptions confirmed → 20 (the seed also says 20)', () => {
    const [row] = advice('seed-002-s6-postgres-changes');
    expect(row).toMatchObject({ key: 'subs_pool_size', value: 20, evidence_steps: [2, 3] });
    expect(row.benefit).toContain('mitigation');
  });

  it('max_presence_events_per_second 12,500 from the 12,670/s presence safe line (the seed rounds to 10,000)', () => {
    const [row] = advice('seed-002-s5-presence');
    expect(row).toMatchObject({ key: 'max_presence_events_per_second', value: 12_500 });
    expect(row.reason).toContain('a topic of 8 members may then update 1,563/s');
  });

  it('§5 quota arithmetic: members² × rate, and quota ÷ members per topic', () => {
    expect(presenceQuotaNeeded(8, 0.1)).toBeCloseTo(6.4, 12);
    expect(presenceUpdateRateLimit(1000, 8)).toBe(125);
    expect(presenceUpdateRateLimit(1000, 200)).toBe(5);
    expect(presenceUpdateRateLimit(1000, 1000)).toBe(1);
    expect(presenceUpdateRateLimit(1000, 10_000)).toBe(0.1);
  });
});

describe('analyzeRun', () => {
  it('bundles fits, knees, capacity and advice with the resolved safe lines', () => {
    const a = analyzeRun(loadRun('seed-002-s1.2-deliveries'));
    expect(a.safe_lines).toEqual({ cpu_pct: 70, mem_pct: 85 });
    expect(a.fits.map((f) => f.spec.id)).toEqual(['memory_vs_connections', 'cpu_vs_deliveries']);
    expect(a.knees.public_deliveries.safe?.step).toBe(3);
    expect(a.capacity).toHaveLength(1);
    expect(a.advice.map((r) => r.key)).toEqual(['max_events_per_second']);
  });

  it('reads safe lines and the wanted join rate from the profile analysis section', () => {
    expect(
      analysisOptionsFromProfile({
        analysis: { cpu_safe_pct: 60, wanted_join_rate_per_s: 180, junk: 'x' },
      }),
    ).toEqual({
      safe_lines: { cpu_pct: 60 },
      wanted_join_rate_per_s: 180,
    });
    expect(analysisOptionsFromProfile(null)).toEqual({});
    const a = analyzeRun(loadRun('seed-002-s1.2-deliveries'), { safe_lines: { cpu_pct: 60 } });
    expect(a.capacity[0].value).toBeCloseTo((60 - 5.5251) / 0.002406, -1);
  });
});
