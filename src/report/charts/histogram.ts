/** The run report's latency histogram: each step's share of messages per latency bucket. */
import type { RunResult } from '../../result/result.js';
import { baseGrid, legend, renderSvg, type Chart } from './render.js';

function bucketLabels(le: readonly number[]): string[] {
  const ms = (v: number) => (v >= 1000 ? `${v / 1000} s` : `${v} ms`);
  return [...le.map((b) => `≤ ${ms(b)}`), `> ${ms(le[le.length - 1])}`];
}

/** Send-to-first-receive histogram per step, from StepResult.latency_histogram_ms. */
export function latencyHistogramChart(result: RunResult): Chart {
  const title = 'First-receive latency histogram';
  const withHist = result.steps.filter(
    (s) => s.latency_histogram_ms && s.latency_histogram_ms.counts.length > 0,
  );
  if (withHist.length === 0)
    return {
      id: 'latency-histogram',
      title,
      svg: null,
      caption: 'The result has no latency histograms (latency_histogram_ms).',
    };
  const le = withHist[0].latency_histogram_ms!.le_ms;
  const same = withHist.filter((s) => s.latency_histogram_ms!.le_ms.join() === le.join());
  return {
    id: 'latency-histogram',
    title,
    svg: renderSvg('latency-histogram', {
      legend,
      grid: { ...baseGrid, bottom: 70 },
      xAxis: { type: 'category', data: bucketLabels(le), axisLabel: { rotate: 35 } },
      yAxis: { type: 'value', name: 'share of messages %' },
      series: same.map((s) => {
        const h = s.latency_histogram_ms!;
        const total = h.counts.reduce((a, n) => a + n, 0) || 1;
        return {
          type: 'bar' as const,
          name: `step ${s.index}${s.verdict === 'generator-bound' ? ' (generator-bound)' : ''}`,
          data: h.counts.map((n) => (n * 100) / total),
        };
      }),
    }),
    caption: `Share of messages per latency bucket, per step${same.length < withHist.length ? '; steps with other bucket bounds are left out' : ''}.`,
  };
}
