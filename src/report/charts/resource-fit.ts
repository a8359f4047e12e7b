/**
 * The run report's resource charts: a server resource against its driver, with the fitted line
 * and the safe line (docs/METHOD.md §1.1 memory vs connections, §1.2 CPU vs deliveries/s).
 */
import type { EChartsOption, LineSeriesOption } from 'echarts';
import type { Analysis } from '../../model/analysis.js';
import { isLinear, predict, type FitResult, type LinearFit } from '../../model/fit.js';
import { STEP_METRICS, type StepMetricName } from '../../model/metrics.js';
import type { RunResult } from '../../result/result.js';
import { baseGrid, legend, renderSvg, type Chart } from './render.js';
import { verdictScatter } from './steps.js';

/**
 * The fitted line from the lowest x (0 at most) to past every step and the fit's range, and on
 * to where it crosses the safe line, at most twice the fit's range.
 */
function fitLine(f: LinearFit, xs: readonly number[], safeLine: number): LineSeriesOption {
  const cross = f.slope > 0 ? (safeLine - f.intercept) / f.slope : null;
  const x1 = Math.max(
    ...xs,
    f.x_max,
    cross !== null && cross > 0 ? Math.min(cross, 2 * f.x_max) : 0,
  );
  const x0 = Math.min(0, ...xs);
  return {
    type: 'line',
    name: 'fit',
    showSymbol: false,
    lineStyle: { color: '#1565c0' },
    data: [
      [x0, predict(f, x0)],
      [x1, predict(f, x1)],
    ],
  };
}

/** The safe line, dashed across the chart at its height. */
function safeLineSeries(safeLine: number): LineSeriesOption {
  return {
    type: 'line',
    name: `safe line ${safeLine} %`,
    data: [],
    markLine: {
      symbol: 'none',
      lineStyle: { type: 'dashed', color: '#c62828' },
      label: { formatter: `safe ${safeLine} %` },
      data: [{ yAxis: safeLine }],
    },
  };
}

/**
 * A resource against its driver with the fitted line and the safe line (docs/METHOD.md §1.1, §1.2).
 */
function resourceFitChart(
  result: RunResult,
  fit: FitResult | undefined,
  safeLine: number,
  what: {
    id: string;
    y: StepMetricName;
    x: StepMetricName;
    yName: string;
    xName: string;
    title: string;
  },
): Chart {
  const { id } = what;
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
  const f = fit?.fit ?? null;
  if (f && isLinear(f)) series.push(fitLine(f, xs, safeLine));
  series.push(safeLineSeries(safeLine));
  const caption = `${fit?.text ?? 'No fit.'} Safe line ${safeLine} %. Only stable steps enter the fit.`;
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
    result,
    analysis.fits.find((f) => f.spec.id === 'cpu_vs_deliveries'),
    analysis.safe_lines.cpu_pct,
    {
      id: 'cpu-vs-deliveries',
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
    result,
    analysis.fits.find((f) => f.spec.id === 'memory_vs_connections'),
    analysis.safe_lines.mem_pct,
    {
      id: 'memory-vs-connections',
      x: 'connections',
      y: 'mem_pct',
      xName: 'connections',
      yName: 'server memory',
      title: 'Server memory vs connections',
    },
  );
}
