/**
 * The run report's per-second timeline: three stacked panels over the seconds from the run's
 * first point (no clock or time zone enters the output) — connections and joins/s, sent and
 * delivered/s, delivery p95 — with the step boundaries dotted across each.
 */
import type { EChartsOption } from 'echarts';
import type { TimeseriesPoint } from '../../result/timeseries-point.js';
import { CHART_WIDTH, legend, renderSvg, type Chart } from './render.js';

const TIMELINE_HEIGHT = 520;

const PANELS = [
  { top: 70, name: 'connections / joins/s' },
  { top: 220, name: 'messages/s' },
  { top: 370, name: 'p95 ms' },
];

/** Step boundaries, so a reader can line the timeline up with the step tables. */
function stepLines(points: readonly TimeseriesPoint[], t0: number) {
  const boundaries: { xAxis: number }[] = [];
  for (let i = 1; i < points.length; i++)
    if (points[i].step !== points[i - 1].step) boundaries.push({ xAxis: points[i].t - t0 });
  return {
    symbol: 'none',
    silent: true,
    lineStyle: { type: 'dotted', color: '#888' },
    label: { show: false },
    data: boundaries,
  };
}

/** One x axis per panel (seconds from start, named under the last) and a y axis each. */
function timelineAxes() {
  return {
    grid: PANELS.map((p) => ({ left: 80, right: 70, top: p.top, height: 105 })),
    xAxis: PANELS.map((_, i) => ({
      type: 'value' as const,
      gridIndex: i,
      name: i === 2 ? 's from start' : '',
      nameLocation: 'middle' as const,
      nameGap: 25,
      min: 0,
    })),
    // sent/s is deliveries ÷ members: on the delivered/s scale it would be a flat line at 0.
    yAxis: [
      ...PANELS.map((p, i) => ({ type: 'value' as const, gridIndex: i, name: p.name })),
      {
        type: 'value' as const,
        gridIndex: 1,
        name: 'sent/s',
        position: 'right' as const,
        splitLine: { show: false },
      },
    ],
  };
}

/** The five lines, each on its panel's axes; the first line of a panel carries the step lines. */
function timelineSeries(points: readonly TimeseriesPoint[]): EChartsOption['series'] {
  const t0 = Math.min(...points.map((p) => p.t));
  const at = (f: (p: TimeseriesPoint) => number | null) => points.map((p) => [p.t - t0, f(p)]);
  const markLine = stepLines(points, t0);
  return [
    {
      type: 'line',
      name: 'connections open',
      xAxisIndex: 0,
      yAxisIndex: 0,
      showSymbol: false,
      data: at((p) => p.connections_open),
      markLine,
    },
    {
      type: 'line',
      name: 'joins/s',
      xAxisIndex: 0,
      yAxisIndex: 0,
      showSymbol: false,
      data: at((p) => p.joins_per_s),
    },
    {
      type: 'line',
      name: 'delivered/s',
      xAxisIndex: 1,
      yAxisIndex: 1,
      showSymbol: false,
      data: at((p) => p.delivered_per_s),
      markLine,
    },
    {
      type: 'line',
      name: 'sent/s (right axis)',
      xAxisIndex: 1,
      yAxisIndex: 3,
      showSymbol: false,
      lineStyle: { type: 'dashed' },
      data: at((p) => p.sent_per_s),
    },
    {
      type: 'line',
      name: 'delivery p95',
      xAxisIndex: 2,
      yAxisIndex: 2,
      showSymbol: false,
      connectNulls: false,
      data: at((p) => p.delivery_p95_ms),
      markLine,
    },
  ] as EChartsOption['series'];
}

/** Per-second timeline in three stacked panels: connections & joins/s, sent & delivered/s, p95. */
export function timelineChart(points: readonly TimeseriesPoint[]): Chart {
  const title = 'Per-second timeline';
  if (points.length === 0)
    return { id: 'timeline', title, svg: null, caption: 'No timeseries.ndjson points.' };
  const { grid, xAxis, yAxis } = timelineAxes();
  const series = timelineSeries(points);
  return {
    id: 'timeline',
    title,
    svg: renderSvg(
      'timeline',
      { legend, grid, xAxis, yAxis, series },
      CHART_WIDTH,
      TIMELINE_HEIGHT,
    ),
    caption:
      'Dotted lines mark step boundaries. Gaps are seconds without a measurement, not zeros.',
  };
}
