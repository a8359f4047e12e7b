import { describe, expect, it } from 'vitest';
import { buildCapacityFile } from '../../src/capacity/table.js';
import type { CapacityFile } from '../../src/capacity/types.js';
import { planKnobs, withSetting } from '../../src/plan/knobs.js';
import { workloadSchema } from '../../src/plan/workload.js';
import { SEED_002_RUNS, loadRun, poolBoundJoinRun } from '../fixtures/index.js';

/** The seed's table with its join-rate run replaced by one the default db_pool of 1 limits. */
export function poolOneTable(): CapacityFile {
  const runs = SEED_002_RUNS.filter((n) => n !== 'seed-002-s4-join-rate').map((n) => ({
    dir: n,
    result: loadRun(n),
  }));
  return buildCapacityFile([...runs, { dir: 'join-pool-1', result: poolBoundJoinRun() }]);
}
const w = (o: Record<string, unknown>) => workloadSchema.parse({ name: 't', ...o });

describe('the join row limited by db_pool', () => {
  const t = poolOneTable();
  const row = t.rows.find((r) => r.id === 'join_rate')!;

  it('carries the setting: db_pool 1 × 4.65/s per connection, per tenant, the knee beside it a lower bound', () => {
    expect(row).toMatchObject({ rule: 'pool headroom', limiting_factor: 'auth pool' });
    expect(row.value).toBeCloseTo(0.5 / 0.1075, 9);
    expect(row.setting_limit).toMatchObject({ key: 'db_pool', today: 1, per_tenant: true });
    expect(row.setting_limit!.per_unit).toBeCloseTo(4.651, 3);
    // 16/s broke past the pool's 9.3/s ceiling: the pool's failure, so 8/s is only a lower bound of
    // the instance.
    expect(row.setting_limit!.without).toMatchObject({
      value: 8,
      bound: 'lower',
      limiting_factor: 'auth pool',
    });
  });

  it('200 joins/s of one tenant: no instance count carries it at db_pool 1; db_pool 43 does, in 25 instances (fewer may do)', () => {
    const k = planKnobs(
      t,
      w({ reconnect: { join_rate_per_s: 200 }, connections: { private: 40_000 } }),
    );
    expect(k.today.instances).toBeNull();
    expect(k.today.impossible).toEqual(['join_rate']);
    const today = k.today.dimensions.find((d) => d.id === 'join_rate')!;
    expect(today.arithmetic).toMatch(
      /^planned per tenant: 200 per tenant \(200 ÷ 1 tenant\) > db_pool 1 × 4\.65 = 4\.65, one tenant's authorisation pool/,
    );
    expect(today.arithmetic).toContain('more instances do not raise it');
    expect(k.knobs).toHaveLength(1);
    const [pool] = k.knobs;
    // ⌈200 ÷ 4.651⌉ = 43 connections (§8: rate ÷ headroom × check time = 200 ÷ 0.5 × 107.5 ms).
    expect(pool).toMatchObject({ setting: 'db_pool', today: 1, recommended: 43 });
    expect(pool.plan!.instances).toBe(25); // 200 ÷ 8/s measured per instance
    const j = pool.plan!.dimensions.find((d) => d.id === 'join_rate')!;
    expect(j.arithmetic).toContain('(a lower bound: fewer may do)');
    expect(k.best).toBe(pool);
  });

  it('ten tenants share the storm: 20/s per tenant needs db_pool 5', () => {
    const k = planKnobs(t, w({ reconnect: { join_rate_per_s: 200 }, tenants: 10 }));
    expect(k.knobs[0].recommended).toBe(5);
    expect(k.today.instances).toBeNull();
    expect(k.knobs[0].plan!.instances).toBe(25);
  });

  it('a workload without joins turns no join knob; withSetting moves only the row it names', () => {
    expect(planKnobs(t, w({ connections: { public: 1000 } })).knobs).toEqual([]);
    const changed = withSetting(t, 'join_rate', 10);
    expect(changed.values.join_rate).toBeCloseTo(46.51, 2);
    expect(changed.values.public_connections).toBe(t.values.public_connections);
  });
});

describe('the presence quota', () => {
  it('members per topic set by the quota arithmetic: raising the quota to the §8 value lifts the row to the measured knee', () => {
    const t = buildCapacityFile(
      SEED_002_RUNS.map((n) => ({ dir: n, result: loadRun(n) })),
      { presence_quota_per_s: 25, topic_updates_per_s: 5 },
    );
    const row = t.rows.find((r) => r.id === 'presence_members')!;
    expect(row).toMatchObject({ rule: 'presence quota', value: 5 });
    expect(row.setting_limit).toMatchObject({
      key: 'max_presence_events_per_second',
      today: 25,
      per_tenant: true,
    });
    const k = planKnobs(
      t,
      w({ presence: { topics: 10, members: 6, updates_per_member_per_s: 0.1 } }),
    );
    const knob = k.knobs.find((x) => x.setting === 'max_presence_events_per_second')!;
    expect(knob.recommended).toBe(
      t.config.find((c) => c.key === 'max_presence_events_per_second')!.value,
    );
    expect(k.today.instances).toBeNull(); // 6 members > 5 by the quota
    const members = knob.plan!.dimensions.find((d) => d.id === 'presence_members')!;
    // 6 ≤ the measured knee of 8, which the quota no longer undercuts.
    expect(members.instances).toBe(1);
    expect(members.arithmetic).toContain('6 ≤ 8 measured per instance: fits in one');
    expect(k.best).toBe(knob);
  });
});
