/**
 * The report's charts as SVG strings, rendered in Node by echarts' server-side renderer
 *. Each builder returns a Chart whose `svg` is null
 * when there is nothing to plot, with the reason, so the page never shows an empty frame
 * that looks like a measurement of zero.
 *
 * Rules shared by every chart: generator-bound steps are drawn apart (grey, hollow) and
 * labelled as not capacity; nulls are gaps, never zeros; time is seconds from the run's
 * first point (no clock or time zone enters the output).
 */
import { createRequire } from 'node:module';
import type { EChartsOption } from 'echarts';
import type { Analysis } from '../model/analysis.js';
import { CAPACITY_DIMENSIONS } from '../model/capacity.js';
import { isLinear, predict, type FitResult } from '../model/fit.js';
import { STEP_METRICS, type StepMetricName } from '../model/metrics.js';
import type { RunResult, StepResult, TimeseriesPoint, Verdict } from '../result/result.js';

export interface Chart {
  id: string;
  title: string;
  /** SVG markup, or null when there is nothing to plot. */
  svg: string | null;
  /** Why there is no chart, or what to read from it. */
  caption: string;
}

export const CHART_WIDTH = 760;
export const CHART_HEIGHT = 340;

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

type Echarts = typeof import('echarts');
let echartsLoaded: Echarts | null = null;

/**
 * echarts, loaded on the first chart and not before: most of a run's life needs no chart, and
 * its fixed cost is mostly module loading. `require` takes a single-file CommonJS
 * build; `import` would take its ES module tree (hundreds of files, ≈ 1 CPU s). The "common"
 * build (line, bar, scatter, pie; grid, legend, markLine, both renderers) has every chart and
 * component the report draws, at 2.5 of the full build's 3.8 MB: ≈ 70 instead of ≈ 150 ms to
 * load here, and byte-identical report.html for the results tried (five of test/fixtures, one
 * no-traffic run; 20 charts: line, bar, scatter, log axis, markLine). A chart type or
 * component outside it must switch back to `echarts` (the full build).
 */
function echartsLib(): Echarts {
  echartsLoaded ??= createRequire(import.meta.url)('echarts/dist/echarts.common.js') as Echarts;
  return echartsLoaded;
}

/**
 * zrender names the ids and classes inside each SVG with process-wide counters
 * ("zr7-c0", "zr7-cls-12"), so the same chart would render differently on each call. They
 * are renamed from the chart id and the order of appearance: output depends on input only,
 * and the SVGs of one page still do not share ids (clip paths and styles stay apart).
 */
export function renderSvg(
  id: string,
  option: EChartsOption,
  width = CHART_WIDTH,
  height = CHART_HEIGHT,
): string {
  const chart = echartsLib().init(null, null, { renderer: 'svg', ssr: true, width, height });
  try {
    chart.setOption({ animation: false, textStyle: { fontFamily: 'sans-serif' }, ...option });
    const prefix = `rc-${id.replace(/[^A-Za-z0-9_-]/g, '_')}-`;
    // Class names carry a second global counter ("zr0-cls-7"): number them in order of appearance.
    const seen = new Map<string, string>();
    const perKind = new Map<string, number>();
    return chart
      .renderToSVGString()
      .replace(/\bzr\d+-([a-z]+-?)(\d+)\b/g, (token, kind: string) => {
        let out = seen.get(token);
        if (out === undefined) {
          const n = perKind.get(kind) ?? 0;
          perKind.set(kind, n + 1);
          out = `${prefix}${kind}${n}`;
          seen.set(token, out);
        }
        return out;
      });
  } finally {
    chart.dispose();
  }
}

/**
 * The load axis of the run: the §7 figure that varied most; with one step (or nothing
 * varied), the scenario's first figure that was measured; else the step number.
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
function loadAxis(label: string, metric: StepMetricName | null) {
  return {
    type: 'value' as const,
    name: label,
    nameLocation: 'middle' as const,
    nameGap: 30,
    min: 0,
    ...(metric === null ? { minInterval: 1 } : {}),
  };
}

function xOf(step: StepResult, metric: StepMetricName | null): number | null {
  return metric ? STEP_METRICS[metric](step) : step.index;
}

// Room on the right for safe-line labels and a second axis; a wide legend gap because the
// SSR renderer measures text without the browser's fonts.
const baseGrid = { left: 70, right: 70, top: 50, bottom: 55, containLabel: false };
const legend = { top: 8, type: 'scroll' as const, itemGap: 28 };

/** One scatter series per verdict, so colour and legend say which points count. */
function verdictScatter(
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

/** A resource against its driver with the fitted line and the safe line (seed §1.1, §1.2). */
function resourceFitChart(
  id: string,
  result: RunResult,
  fit: FitResult | undefined,
  safeLine: number,
  what: { y: StepMetricName; x: StepMetricName; yName: string; xName: string; title: string },
): Chart {
  const series: EChartsOption['series'] = verdictScatter(
    result.steps,
    (s) => STEP_METRICS[what.x](s),
    (s) => STEP_METRICS[what.y](s),
  );
  if (series.length === 0)
    return {
      id,
      title: what.title,
      svg: null,
      caption: `No step had both ${what.xName} and ${what.yName} measured.`,
    };
  const xs = result.steps
    .map((s) => STEP_METRICS[what.x](s))
    .filter((v): v is number => v !== null);
  let caption = fit?.text ?? 'No fit.';
  const f = fit?.fit ?? null;
  if (f && isLinear(f)) {
    const cross = f.slope > 0 ? (safeLine - f.intercept) / f.slope : null;
    const x1 = Math.max(
      ...xs,
      f.x_max,
      cross !== null && cross > 0 ? Math.min(cross, 2 * f.x_max) : 0,
    );
    const x0 = Math.min(0, ...xs);
    series.push({
      type: 'line',
      name: 'fit',
      showSymbol: false,
      lineStyle: { color: '#1565c0' },
      data: [
        [x0, predict(f, x0)],
        [x1, predict(f, x1)],
      ],
    });
  }
  series.push({
    type: 'line',
    name: `safe line ${safeLine} %`,
    data: [],
    markLine: {
      symbol: 'none',
      lineStyle: { type: 'dashed', color: '#c62828' },
      label: { formatter: `safe ${safeLine} %` },
      data: [{ yAxis: safeLine }],
    },
  });
  caption += ` Safe line ${safeLine} %. Only stable steps enter the fit.`;
  return {
    id,
    title: what.title,
    svg: renderSvg(id, {
      legend,
      grid: baseGrid,
      xAxis: { type: 'value', name: what.xName, nameLocation: 'middle', nameGap: 30, min: 0 },
      yAxis: { type: 'value', name: `${what.yName} %`, min: 0, max: 100 },
      series,
    }),
    caption,
  };
}

export function cpuVsDeliveriesChart(result: RunResult, analysis: Analysis): Chart {
  return resourceFitChart(
    'cpu-vs-deliveries',
    result,
    analysis.fits.find((f) => f.spec.id === 'cpu_vs_deliveries'),
    analysis.safe_lines.cpu_pct,
    {
      x: 'delivered_per_s',
      y: 'cpu_pct',
      xName: 'deliveries/s',
      yName: 'server CPU',
      title: 'Server CPU vs deliveries/s',
    },
  );
}

export function memoryVsConnectionsChart(result: RunResult, analysis: Analysis): Chart {
  return resourceFitChart(
    'memory-vs-connections',
    result,
    analysis.fits.find((f) => f.spec.id === 'memory_vs_connections'),
    analysis.safe_lines.mem_pct,
    {
      x: 'connections',
      y: 'mem_pct',
      xName: 'connections',
      yName: 'server memory',
      title: 'Server memory vs connections',
    },
  );
}

/** Per-second timeline in three stacked panels: connections & joins/s, sent & delivered/s, p95. */
export function timelineChart(points: readonly TimeseriesPoint[]): Chart {
  const title = 'Per-second timeline';
  if (points.length === 0)
    return { id: 'timeline', title, svg: null, caption: 'No timeseries.ndjson points.' };
  const t0 = Math.min(...points.map((p) => p.t));
  const at = (f: (p: TimeseriesPoint) => number | null) => points.map((p) => [p.t - t0, f(p)]);
  const panels = [
    { top: 70, name: 'connections / joins/s' },
    { top: 220, name: 'messages/s' },
    { top: 370, name: 'p95 ms' },
  ];
  const grid = panels.map((p) => ({ left: 80, right: 70, top: p.top, height: 105 }));
  // Step boundaries, so a reader can line the timeline up with the step tables.
  const boundaries: { xAxis: number }[] = [];
  for (let i = 1; i < points.length; i++)
    if (points[i].step !== points[i - 1].step) boundaries.push({ xAxis: points[i].t - t0 });
  const stepLines = {
    symbol: 'none',
    silent: true,
    lineStyle: { type: 'dotted', color: '#888' },
    label: { show: false },
    data: boundaries,
  };
  return {
    id: 'timeline',
    title,
    svg: renderSvg(
      'timeline',
      {
        legend,
        grid,
        xAxis: panels.map((_, i) => ({
          type: 'value' as const,
          gridIndex: i,
          name: i === 2 ? 's from start' : '',
          nameLocation: 'middle' as const,
          nameGap: 25,
          min: 0,
        })),
        // sent/s is deliveries ÷ members: on the delivered/s scale it would be a flat line at 0.
        yAxis: [
          ...panels.map((p, i) => ({ type: 'value' as const, gridIndex: i, name: p.name })),
          {
            type: 'value' as const,
            gridIndex: 1,
            name: 'sent/s',
            position: 'right' as const,
            splitLine: { show: false },
          },
        ],
        series: [
          {
            type: 'line',
            name: 'connections open',
            xAxisIndex: 0,
            yAxisIndex: 0,
            showSymbol: false,
            data: at((p) => p.connections_open),
            markLine: stepLines,
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
            markLine: stepLines,
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
            markLine: stepLines,
          },
        ] as EChartsOption['series'],
      },
      CHART_WIDTH,
      520,
    ),
    caption:
      'Dotted lines mark step boundaries. Gaps are seconds without a measurement, not zeros.',
  };
}

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

/** Every chart of the report, in page order. */
export function allCharts(
  result: RunResult,
  analysis: Analysis,
  timeseries: readonly TimeseriesPoint[],
): Chart[] {
  return [
    latencyVsLoadChart(result),
    deliveryVsLoadChart(result),
    cpuVsDeliveriesChart(result, analysis),
    memoryVsConnectionsChart(result, analysis),
    timelineChart(timeseries),
    latencyHistogramChart(result),
    resourcesChart(result),
  ];
}
