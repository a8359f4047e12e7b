/**
 * Steps as points of a chart: the run's load axis (the docs/METHOD.md §7 figure that varied most)
 * and one scatter series per verdict, generator-bound steps drawn apart (grey, hollow) and labelled
 * as not capacity; nulls are gaps, never zeros.
 */
import { CAPACITY_DIMENSIONS } from '../../model/capacity-dimensions.js';
import { STEP_METRICS, type StepMetricName } from '../../model/metrics.js';
import type { RunResult, StepResult, Verdict } from '../../result/result.js';

export const VERDICT_COLOURS: Record<Verdict, string> = {
  stable: '#2e7d32',
  degraded: '#ef6c00',
  broken: '#c62828',
  'generator-bound': '#9e9e9e',
  inconclusive: '#bdbdbd',
};
const VERDICTS: Verdict[] = ['stable', 'degraded', 'broken', 'generator-bound', 'inconclusive'];
const VERDICT_LABEL: Record<Verdict, string> = {
  stable: 'stable',
  degraded: 'degraded',
  broken: 'broken',
  'generator-bound': 'generator-bound (not capacity)',
  inconclusive: 'inconclusive (nothing measured)',
};

/**
 * The load axis of the run: the docs/METHOD.md §7 figure that varied most; with one step (or
 * nothing varied), the scenario's first figure that was measured; else the step number.
 */
export function primaryDriver(result: RunResult): { metric: StepMetricName | null; label: string } {
  let best: { metric: StepMetricName; label: string; n: number } | null = null;
  for (const d of CAPACITY_DIMENSIONS) {
    if (!d.scenarios.includes(result.profile.scenario)) continue;
    // The row's measured figure, or what the steps asked for when it was not measured (older
    // results).
    const counts = [d.value, d.driver].map((metric) => ({
      metric,
      n: new Set(result.steps.map((s) => STEP_METRICS[metric](s)).filter((v) => v !== null)).size,
    }));
    const pick = counts.find((c) => c.n >= 2) ?? counts.find((c) => c.n >= 1);
    if (pick && (!best || pick.n > best.n))
      best = { metric: pick.metric, label: d.label.split(' — ').pop()!, n: pick.n };
  }
  return best ? { metric: best.metric, label: best.label } : { metric: null, label: 'step' };
}

/** A load axis from zero (echarts' `scale` would give a one-step run an axis of 0.4–1.6). */
export function loadAxis(label: string, metric: StepMetricName | null) {
  return {
    type: 'value' as const,
    name: label,
    nameLocation: 'middle' as const,
    nameGap: 30,
    min: 0,
    ...(metric === null ? { minInterval: 1 } : {}),
  };
}

export function xOf(step: StepResult, metric: StepMetricName | null): number | null {
  return metric ? STEP_METRICS[metric](step) : step.index;
}

/** One scatter series per verdict, so colour and legend say which points count. */
export function verdictScatter(
  steps: readonly StepResult[],
  x: (s: StepResult) => number | null,
  y: (s: StepResult) => number | null,
) {
  return VERDICTS.map((v) => ({
    type: 'scatter' as const,
    name: VERDICT_LABEL[v],
    symbolSize: 9,
    itemStyle:
      v === 'generator-bound'
        ? { color: 'transparent', borderColor: VERDICT_COLOURS[v], borderWidth: 2 }
        : { color: VERDICT_COLOURS[v] },
    data: steps
      .filter((s) => s.verdict === v)
      .map((s) => [x(s), y(s)] as [number | null, number | null])
      .filter((p): p is [number, number] => p[0] !== null && p[1] !== null),
  })).filter((s) => s.data.length > 0);
}
