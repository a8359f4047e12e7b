import { describe, expect, it } from 'vitest';
import { buildCapacityFile } from '../../src/capacity/table.js';
import type { CapacityFile } from '../../src/capacity/types.js';
import { planInstances } from '../../src/plan/instances.js';
import { workloadSchema } from '../../src/plan/workload.js';
import { SEED_002_RUNS, loadRun } from '../fixtures/index.js';

/** The table the seed's own figures give (test/capacity/table.test.ts holds its rows). */
const seedTable = (): CapacityFile =>
  buildCapacityFile(SEED_002_RUNS.map((n) => ({ dir: n, result: loadRun(n) })));
const w = (o: Record<string, unknown>) => workloadSchema.parse({ name: 't', ...o });

describe('planInstances on the seed table', () => {
  const t = seedTable();
  const connections = t.values.public_connections!; // 21,250 (memory line at 85 %)
  const deliveries = t.values.public_deliveries!; // 26,798/s (CPU line at 70 %)

  it('instances = ceil(demand ÷ capacity) per dimension, the largest binds, headroom at that count', () => {
    const plan = planInstances(
      t,
      w({ connections: { public: 50_000 }, public: { messages_per_s: 1, fanout: 50_000 } }),
    );
    // 50,000 ÷ 21,250 = 2.35 → 3; 50,000 ÷ 26,798 = 1.87 → 2.
    expect(plan.dimensions.map((d) => [d.id, d.instances])).toEqual([
      ['public_connections', 3],
      ['public_deliveries', 2],
    ]);
    expect(plan).toMatchObject({
      instances: 3,
      binding: 'public_connections',
      impossible: [],
      unmeasured: [],
    });
    expect(plan.dimensions[0].headroom).toBeCloseTo(1 - 50_000 / (3 * connections), 9);
    expect(plan.dimensions[1].headroom).toBeCloseTo(1 - 50_000 / (3 * deliveries), 9);
    expect(plan.dimensions[0].arithmetic).toBe('50,000 ÷ 21,250 per instance = 2.35 → 3');
  });

  it('a single presence topic of 10,000 members: no instance count carries it, said so', () => {
    const plan = planInstances(
      t,
      w({
        connections: { public: 10_000 },
        presence: { topics: 1, members: 10_000, updates_per_member_per_s: 0.01 },
      }),
    );
    expect(plan.instances).toBeNull();
    expect(plan.impossible).toContain('presence_members');
    const row = plan.dimensions.find((d) => d.id === 'presence_members')!;
    expect(row.instances).toBe(Infinity);
    expect(row.arithmetic).toBe(
      '10,000 > 8 per instance and cannot be split across instances: no number of instances carries it',
    );
  });

  it('a dimension the table has no value for is not planned, and says why', () => {
    const plan = planInstances(
      t,
      w({ write_only: { messages_per_s: 1000 }, connections: { public: 100 } }),
    );
    expect(plan.instances).toBe(1);
    expect(plan.unmeasured).toEqual(['write_only_sends']);
    expect(plan.dimensions.find((d) => d.id === 'write_only_sends')!.arithmetic).toContain(
      'not measured (no write-only run',
    );
  });
});
