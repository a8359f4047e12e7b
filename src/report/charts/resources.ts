/** The run report's resources chart: server and generator figures per step, side by side. */
import type { RunResult, StepResult } from '../../result/result.js';
import { baseGrid, legend, renderSvg, type Chart } from './render.js';

/** Server CPU and memory, generator CPU and event-loop lag, per step. */
export function resourcesChart(result: RunResult): Chart {
  const title = 'Server and generator resources per step';
  const steps = result.steps;
  const cats = steps.map(
    (s) => `${s.index}${s.verdict === 'generator-bound' ? ' (gen-bound)' : ''}`,
  );
  const col = (f: (s: StepResult) => number | null | undefined) => steps.map((s) => f(s) ?? null);
  const series = [
    { type: 'bar' as const, name: 'server CPU %', data: col((s) => s.server?.cpu_pct) },
    { type: 'bar' as const, name: 'server memory %', data: col((s) => s.server?.mem_pct) },
    { type: 'bar' as const, name: 'generator CPU %', data: col((s) => s.generator?.cpu_pct) },
    {
      type: 'line' as const,
      name: 'generator lag p99 ms',
      yAxisIndex: 1,
      data: col((s) => s.generator?.event_loop_lag_p99_ms),
    },
  ].filter((s) => s.data.some((v) => v !== null));
  if (series.length === 0)
    return {
      id: 'resources',
      title,
      svg: null,
      caption: 'Neither the server nor the generator was sampled.',
    };
  return {
    id: 'resources',
    title,
    svg: renderSvg('resources', {
      legend,
      grid: baseGrid,
      xAxis: { type: 'category', data: cats, name: 'step', nameLocation: 'middle', nameGap: 30 },
      yAxis: [
        { type: 'value', name: '%', min: 0 },
        { type: 'value', name: 'lag ms', min: 0 },
      ],
      series,
    }),
    caption: `Server figures from ${result.target.server_sampling ?? 'nowhere (not sampled)'}; missing bars are figures not sampled, not zeros.`,
  };
}
