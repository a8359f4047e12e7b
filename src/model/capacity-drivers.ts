/**
 * How the drivers of a run's capacity rows relate: whether a driver varied at all, which
 * failed steps another driver explains, and whether two drivers rose together.
 */
import type { StepResult } from '../result/result.js';
import { STEP_METRICS, type StepMetricName } from './metrics.js';
import { isJudged } from './verdict.js';
import type { CapacityDimension } from './capacity-dimensions.js';

/** A dimension counts as measured when its driver took two or more values on server evidence. */
export function driverVaried(steps: readonly StepResult[], driver: StepMetricName): boolean {
  const values = new Set<number>();
  for (const s of steps) {
    if (!isJudged(s.verdict)) continue;
    const v = STEP_METRICS[driver](s);
    if (v !== null) values.add(v);
  }
  return values.size >= 2;
}

/**
 * Failed steps another dimension explains: the step did not go beyond what this driver
 * carried stably elsewhere in the run, and it did go beyond what another driver carried.
 * docs/METHOD.md §2.1: the 2,000 × 2 room step at 10,000 sends/s broke with 8,100 deliveries/s,
 * below the 17,200/s carried by the 500 × 8 step — its failure belongs to sends/s, not
 * deliveries/s. With no other dimension to blame, a failure always counts (a repeat that failed is
 * not noise).
 */
export function attributedElsewhere(
  steps: readonly StepResult[],
  dim: CapacityDimension,
  others: readonly CapacityDimension[],
): Set<number> {
  const out = new Set<number>();
  const stable = steps.filter((s) => s.verdict === 'stable');
  const maxStable = (d: StepMetricName) => {
    const vs = stable.map((s) => STEP_METRICS[d](s)).filter((v): v is number => v !== null);
    return vs.length ? Math.max(...vs) : null;
  };
  const ownMax = maxStable(dim.driver);
  if (ownMax === null) return out;
  const otherMax = others.map((o) => ({ o, max: maxStable(o.driver) }));
  for (const s of steps) {
    if (s.verdict !== 'degraded' && s.verdict !== 'broken') continue;
    const v = STEP_METRICS[dim.driver](s);
    if (v === null || v > ownMax) continue;
    const beyondOther = otherMax.some(({ o, max }) => {
      const ov = STEP_METRICS[o.driver](s);
      return ov !== null && max !== null && ov > max;
    });
    if (beyondOther) out.add(s.index);
  }
  return out;
}

/** Two drivers rose together when every pair of judged steps orders them the same way. */
export function sameOrder(
  steps: readonly StepResult[],
  a: StepMetricName,
  b: StepMetricName,
): boolean {
  const pairs = steps
    .filter((s) => isJudged(s.verdict))
    .map((s) => [STEP_METRICS[a](s), STEP_METRICS[b](s)] as const)
    .filter((p): p is readonly [number, number] => p[0] !== null && p[1] !== null);
  if (pairs.length < 2) return false;
  for (let i = 0; i < pairs.length; i++) {
    for (let j = i + 1; j < pairs.length; j++) {
      const da = Math.sign(pairs[j][0] - pairs[i][0]);
      const db = Math.sign(pairs[j][1] - pairs[i][1]);
      if (da !== db) return false;
    }
  }
  return true;
}
