/**
 * Scaling up or out: with capacity tables measured on several instance sizes, each
 * dimension's capacity is fitted against vCPUs (least squares, model/fit), and the workload is
 * planned on every measured size; the size needing the fewest vCPUs in total is the cheaper
 * way, taking cost as proportional to vCPUs (docs/CAPACITY.md).
 */
import type { CapacityFile } from '../capacity/types.js';
import { leastSquares } from '../model/fit.js';
import { planInstances, type InstancePlan } from './instances.js';
import type { Workload } from './workload.js';

export interface SizePlan {
  vcpus: number;
  memory_mb: number;
  plan: InstancePlan;
  /** instances × vCPUs; null when the workload cannot be carried on this size. */
  total_vcpus: number | null;
}

export interface CapacityVsSize {
  id: string;
  /** Capacity ≈ intercept + slope × vCPUs; null with fewer than two sizes measuring it. */
  intercept: number | null;
  slope: number | null;
  points: { vcpus: number; value: number }[];
  text: string;
}

export interface ScalingAdvice {
  sizes: SizePlan[];
  fits: CapacityVsSize[];
  /** The size with the fewest total vCPUs, and one sentence on up vs out. */
  cheapest: SizePlan | null;
  verdict: string;
}

export function fitCapacityVsSize(
  tables: readonly CapacityFile[],
  ids: readonly string[],
): CapacityVsSize[] {
  return ids.map((id) => {
    const points = tables
      .map((t) => ({
        vcpus: t.target.instance.vcpus,
        value: t.rows.find((r) => r.id === id)?.value ?? null,
      }))
      .filter((p): p is { vcpus: number; value: number } => p.value !== null);
    const fit = leastSquares(points.map((p, i) => ({ x: p.vcpus, y: p.value, step: i })));
    if (!fit)
      return {
        id,
        intercept: null,
        slope: null,
        points,
        text: `${id}: measured on ${points.length} size${points.length === 1 ? '' : 's'}, no fit`,
      };
    const perCpu = fit.slope;
    const linear =
      fit.intercept <= 0.1 * Math.abs(perCpu)
        ? 'about proportional to vCPUs'
        : fit.intercept > 0
          ? 'less than proportional to vCPUs (a fixed part)'
          : 'more than proportional';
    return {
      id,
      intercept: fit.intercept,
      slope: fit.slope,
      points,
      text: `${id} ≈ ${fit.intercept.toFixed(0)} + ${perCpu.toFixed(0)} × vCPUs (${points.length} sizes): ${linear}`,
    };
  });
}

export function adviseScaling(tables: readonly CapacityFile[], workload: Workload): ScalingAdvice {
  const sizes = tables
    .map((t) => {
      const plan = planInstances(t, workload);
      return {
        vcpus: t.target.instance.vcpus,
        memory_mb: t.target.instance.memory_mb,
        plan,
        total_vcpus: plan.instances === null ? null : plan.instances * t.target.instance.vcpus,
      };
    })
    .sort((a, b) => a.vcpus - b.vcpus);
  const ids = [...new Set(sizes.flatMap((s) => s.plan.dimensions.map((d) => d.id)))];
  const fits = fitCapacityVsSize(tables, ids);
  const feasible = sizes.filter((s) => s.total_vcpus !== null);
  const cheapest = feasible.reduce<SizePlan | null>(
    (a, b) =>
      a === null ||
      b.total_vcpus! < a.total_vcpus! ||
      (b.total_vcpus === a.total_vcpus && b.plan.instances! < a.plan.instances!)
        ? b
        : a,
    null,
  );
  let verdict: string;
  if (sizes.length < 2)
    verdict =
      'one instance size measured: measure another (e.g. --server-cpus) to compare scaling up with scaling out';
  else if (!cheapest) verdict = 'no measured size carries this workload at any instance count';
  else {
    const smallest = sizes[0];
    const largest = sizes[sizes.length - 1];
    const desc = (s: SizePlan) =>
      s.total_vcpus === null
        ? `${s.vcpus} vCPU: cannot carry it`
        : `${s.plan.instances} × ${s.vcpus} vCPU = ${s.total_vcpus} vCPUs`;
    const way =
      cheapest === smallest
        ? 'scaling out on the smaller size is cheaper'
        : cheapest === largest
          ? 'scaling up to the larger size is cheaper'
          : `the ${cheapest.vcpus} vCPU size is cheapest`;
    const tie =
      feasible.filter((s) => s.total_vcpus === cheapest.total_vcpus).length > 1
        ? ' (a tie in vCPUs: fewer, larger instances are simpler to run)'
        : '';
    verdict = `${way}${tie}: ${sizes.map(desc).join('; ')}`;
  }
  return { sizes, fits, cheapest, verdict };
}
