import { describe, expect, it } from 'vitest';
import type { CapacityFile, CapacityTableRow } from '../../src/capacity/types.js';
import { adviseScaling } from '../../src/plan/scaling.js';
import { workloadSchema } from '../../src/plan/workload.js';

const row = (id: string, value: number): CapacityTableRow => ({
  no: 1,
  id,
  dimension: id,
  unit: 'per_s',
  value,
  display: `≤ ${value}`,
  bound: 'upper',
  limiting_factor: 'CPU',
  rule: 'safe-line fit',
  rule_text: '',
  evidence: null,
  reason: null,
  notes: [],
});
const table = (vcpus: number, deliveries: number, connections: number): CapacityFile => ({
  schema: 'rtcap.capacity/v1',
  created_at: '',
  rtcap_version: '0.1.0',
  safe_lines: { cpu_pct: 70, mem_pct: 85 },
  sources: [],
  target: {
    url: 'built-in server',
    builtin: true,
    instance: { vcpus, memory_mb: 4096 },
    cpus: null,
  },
  values: {},
  rows: [row('public_deliveries', deliveries), row('public_connections', connections)],
  config: [],
});

describe('adviseScaling', () => {
  const workload = workloadSchema.parse({
    name: 't',
    connections: { public: 20_000 },
    public: { messages_per_s: 2, fanout: 20_000 },
  });

  it('capacity growing less than proportionally with vCPUs: out on the small size is cheaper', () => {
    // 1 vCPU: 15,000 deliveries/s, 2 vCPU: 25,000 (a fixed part); connections follow memory, not
    // vCPUs.
    const s = adviseScaling([table(2, 25_000, 20_000), table(1, 15_000, 20_000)], workload);
    // 40,000/s: 1 vCPU needs ceil(2.67) = 3 (3 vCPUs); 2 vCPU needs ceil(1.6) = 2 (4 vCPUs).
    expect(s.sizes.map((z) => [z.vcpus, z.plan.instances, z.total_vcpus])).toEqual([
      [1, 3, 3],
      [2, 2, 4],
    ]);
    expect(s.cheapest!.vcpus).toBe(1);
    expect(s.verdict).toMatch(
      /^scaling out on the smaller size is cheaper: 3 × 1 vCPU = 3 vCPUs; 2 × 2 vCPU = 4 vCPUs$/,
    );
    const f = s.fits.find((x) => x.id === 'public_deliveries')!;
    expect(f.slope).toBeCloseTo(10_000, 6);
    expect(f.intercept).toBeCloseTo(5000, 6);
  });

  it('capacity growing more than proportionally: up is cheaper', () => {
    const s = adviseScaling([table(1, 10_000, 20_000), table(2, 40_000, 20_000)], workload);
    expect(s.verdict).toMatch(
      /^scaling up to the larger size is cheaper: 4 × 1 vCPU = 4 vCPUs; 1 × 2 vCPU = 2 vCPUs$/,
    );
  });

  it('one size: says another must be measured', () => {
    expect(adviseScaling([table(2, 25_000, 20_000)], workload).verdict).toContain(
      'one instance size measured',
    );
  });
});
