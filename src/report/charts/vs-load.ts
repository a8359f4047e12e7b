/** The run report's charts of each step against the load: first-receipt latency and delivery. */
import type { RunResult } from '../../result/result.js';
import { baseGrid, legend, renderSvg, type Chart } from './render.js';
import { loadAxis, primaryDriver, VERDICT_COLOURS, verdictScatter, xOf } from './steps.js';

/**
 * First-receive p50/p95/p99 per step against the load, with the SLO (log scale: ms to tens of s).
 */
export function latencyVsLoadChart(result: RunResult): Chart {
  const { metric, label } = primaryDriver(result);
  const title = `First-receive latency vs ${label}`;
  const pts = (k: 'p50' | 'p95' | 'p99') =>
    result.steps
      .map((s) => [xOf(s, metric), s.latency_ms?.[k] ?? null, s.verdict] as const)
      .filter((p) => p[0] !== null && p[1] !== null && p[1] > 0)
      .sort((a, b) => a[0]! - b[0]!)
      .map(([x, y, v]) => ({
        value: [x, y],
        itemStyle:
          v === 'generator-bound' ? { color: VERDICT_COLOURS['generator-bound'] } : undefined,
      }));
  const series = (['p50', 'p95', 'p99'] as const).map((k) => ({
    type: 'line' as const,
    name: k,
    data: pts(k),
    symbolSize: 7,
  }));
  if (series.every((s) => s.data.length === 0))
    return { id: 'latency-vs-load', title, svg: null, caption: 'No latency was measured.' };
  const slo = result.slo.p95_ms;
  (series[1] as Record<string, unknown>).markLine = {
    symbol: 'none',
    lineStyle: { type: 'dashed', color: '#c62828' },
    label: { formatter: `SLO p95 ${slo} ms` },
    data: [{ yAxis: slo }],
  };
  return {
    id: 'latency-vs-load',
    title,
    svg: renderSvg('latency-vs-load', {
      legend,
      grid: baseGrid,
      xAxis: loadAxis(label, metric),
      yAxis: { type: 'log', name: 'ms', logBase: 10 },
      series,
    }),
    caption:
      'From the scheduled send time (no coordinated omission). Grey points are generator-bound steps: not server capacity.',
  };
}

/** Delivery rate per step against the load. */
export function deliveryVsLoadChart(result: RunResult): Chart {
  const { metric, label } = primaryDriver(result);
  const title = `Delivery vs ${label}`;
  const series = verdictScatter(
    result.steps,
    (s) => xOf(s, metric),
    (s) => (s.delivery_rate === null ? null : s.delivery_rate * 100),
  );
  if (series.length === 0)
    return {
      id: 'delivery-vs-load',
      title,
      svg: null,
      caption: 'No message was expected in any step: delivery is not defined.',
    };
  return {
    id: 'delivery-vs-load',
    title,
    svg: renderSvg('delivery-vs-load', {
      legend,
      grid: baseGrid,
      xAxis: loadAxis(label, metric),
      yAxis: { type: 'value', name: 'delivery %', max: 100, scale: true },
      series: [
        ...series,
        {
          type: 'line',
          name: 'SLO',
          data: [],
          markLine: {
            symbol: 'none',
            lineStyle: { type: 'dashed', color: '#c62828' },
            label: { formatter: `SLO ${result.slo.delivery_rate * 100}%` },
            data: [{ yAxis: result.slo.delivery_rate * 100 }],
          },
        },
      ],
    }),
    caption: 'Received ÷ expected, each message counted once per member joined when it was sent.',
  };
}
