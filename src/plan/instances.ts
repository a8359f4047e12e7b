/**
 * How many instances of the measured size a workload needs: for each dimension,
 * demand ÷ capacity per instance, rounded up; the dimension needing the most binds. A demand
 * that cannot be split (one topic's members, one message's size, one tenant's CDC) must fit in
 * one instance, or no count of instances carries it — said so. Pure arithmetic.
 */
import type { CapacityFile, CapacityTableRow } from '../capacity/types.js';
import { demandsOf, type Demand } from './demands.js';
import type { Workload } from './workload.js';

export interface DimensionPlan {
  id: string;
  dimension: string;
  demand: number;
  demand_text: string;
  /** false: the demand must fit in one instance (one topic, one message, one tenant). */
  shardable: boolean;
  /** Per instance, from the capacity table; null when the table has no value. */
  capacity: number | null;
  capacity_display: string;
  /**
   * Instances this dimension alone needs; null when not measured, Infinity when no count carries
   * it.
   */
  instances: number | null;
  /**
   * 1 − demand ÷ (instances × capacity) at the plan's count; null when not measured or impossible.
   */
  headroom: number | null;
  arithmetic: string;
  /** The count rests on a lower-bound capacity: fewer instances may do. */
  lower_bound?: boolean;
}

export interface InstancePlan {
  /** Instances needed; null when some demand cannot be carried at all. */
  instances: number | null;
  binding: string | null;
  dimensions: DimensionPlan[];
  /** Dimensions no count of instances carries, and dimensions the table could not judge. */
  impossible: string[];
  unmeasured: string[];
}

const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 2 });

export function planDimension(
  d: Demand,
  row: CapacityTableRow | undefined,
  tenants = 1,
): DimensionPlan {
  const base = {
    id: d.id,
    dimension: row?.dimension ?? d.id,
    demand: d.value,
    demand_text: d.text,
    shardable: d.shardable,
    capacity: row?.value ?? null,
    capacity_display: row?.display ?? '—',
  };
  if (!row || row.value === null || row.value <= 0) {
    return {
      ...base,
      instances: null,
      headroom: null,
      arithmetic: `not measured (${row?.reason ?? 'no such row'}): this dimension is not planned`,
    };
  }
  if (row.setting_limit?.per_tenant) return planPerTenant(d, row, tenants, base);
  const cap = row.value;
  const lower = row.bound === 'lower' ? ' (capacity is a lower bound: fewer may do)' : '';
  if (!d.shardable) {
    if (d.value <= cap)
      return {
        ...base,
        instances: 1,
        headroom: null,
        arithmetic: `${fmt(d.value)} ≤ ${fmt(cap)} per instance: fits in one${lower}`,
      };
    return {
      ...base,
      instances: Infinity,
      headroom: null,
      arithmetic: `${fmt(d.value)} > ${fmt(cap)} per instance and cannot be split across instances: no number of instances carries it`,
    };
  }
  const n = Math.max(1, Math.ceil(d.value / cap - 1e-9));
  return {
    ...base,
    instances: n,
    headroom: null,
    lower_bound: row.bound === 'lower',
    arithmetic: `${fmt(d.value)} ÷ ${fmt(cap)} per instance = ${fmt(d.value / cap)} → ${n}${lower}`,
  };
}

/**
 * A row one tenant's setting bounds (its db_pool, its presence quota): each tenant's share of the
 * demand must fit under it whatever the instance count, and the bound the runs measured beside it
 * (the knee, per instance) sets the instances.
 */
function planPerTenant(
  d: Demand,
  row: CapacityTableRow,
  tenants: number,
  base: Omit<DimensionPlan, 'instances' | 'headroom' | 'arithmetic'>,
): DimensionPlan {
  const lim = row.setting_limit!;
  const cap = row.value!;
  const share = d.shardable ? d.value / tenants : d.value;
  const who = d.shardable
    ? `${fmt(share)} per tenant (${fmt(d.value)} ÷ ${tenants} tenant${tenants === 1 ? '' : 's'})`
    : fmt(share);
  const setting = `${lim.setting} ${fmt(lim.today)} × ${fmt(lim.per_unit)} = ${fmt(cap)}`;
  if (share > cap) {
    return {
      ...base,
      capacity: cap,
      instances: Infinity,
      headroom: null,
      arithmetic: `planned per tenant: ${who} > ${setting}, ${lim.basis}; more instances do not raise it`,
    };
  }
  const w = lim.without;
  const within = `planned per tenant: ${who} ≤ ${setting}`;
  if (!w)
    return {
      ...base,
      capacity: cap,
      instances: 1,
      headroom: null,
      arithmetic: `${within}; nothing else measured bounds it`,
    };
  const lower = w.bound === 'lower' ? ' (a lower bound: fewer may do)' : '';
  if (!d.shardable) {
    if (d.value <= w.value)
      return {
        ...base,
        instances: 1,
        headroom: null,
        arithmetic: `${within}; ${fmt(d.value)} ≤ ${fmt(w.value)} measured per instance: fits in one${lower}`,
      };
    return {
      ...base,
      instances: Infinity,
      headroom: null,
      arithmetic: `${within}; but ${fmt(d.value)} > ${fmt(w.value)} measured per instance and cannot be split`,
    };
  }
  const n = Math.max(1, Math.ceil(d.value / w.value - 1e-9));
  return {
    ...base,
    capacity: w.value,
    capacity_display: `${row.display} per tenant; ${w.display}`,
    instances: n,
    headroom: null,
    lower_bound: w.bound === 'lower',
    arithmetic: `${within}; per instance ${fmt(d.value)} ÷ ${fmt(w.value)} measured = ${fmt(d.value / w.value)} → ${n}${lower}`,
  };
}

/** Headroom of a dimension at `n` instances: the share of capacity left. */
export function headroomAt(p: DimensionPlan, n: number): number | null {
  if (p.capacity === null || p.instances === null || !Number.isFinite(p.instances)) return null;
  const total = p.shardable ? n * p.capacity : p.capacity;
  return 1 - p.demand / total;
}

export function planInstances(capacity: CapacityFile, workload: Workload): InstancePlan {
  const dims = demandsOf(workload).map((d) =>
    planDimension(
      d,
      capacity.rows.find((r) => r.id === d.id),
      workload.tenants,
    ),
  );
  const impossible = dims.filter((p) => p.instances === Infinity).map((p) => p.id);
  const unmeasured = dims.filter((p) => p.instances === null).map((p) => p.id);
  const finite = dims.filter((p) => p.instances !== null && Number.isFinite(p.instances));
  if (impossible.length > 0)
    return { instances: null, binding: impossible[0], dimensions: dims, impossible, unmeasured };
  const bind = finite.reduce<DimensionPlan | null>(
    (a, b) => (a === null || b.instances! > a.instances! ? b : a),
    null,
  );
  const n = bind?.instances ?? 0;
  for (const p of dims) p.headroom = headroomAt(p, n);
  return { instances: n, binding: bind?.id ?? null, dimensions: dims, impossible, unmeasured };
}
