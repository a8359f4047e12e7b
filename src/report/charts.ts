/**
 * The run report's charts as SVG strings, rendered in Node by echarts' server-side renderer
 * (report/charts/render), one file per chart under report/charts/. Each builder returns a
 * Chart whose `svg` is null when there is nothing to plot, with the reason, so the page never
 * shows an empty frame that looks like a measurement of zero.
 *
 * Rules shared by every chart: generator-bound steps are drawn apart (grey, hollow) and
 * labelled as not capacity; nulls are gaps, never zeros; time is seconds from the run's
 * first point (no clock or time zone enters the output).
 */
import type { Analysis } from '../model/analysis.js';
import type { RunResult } from '../result/result.js';
import type { TimeseriesPoint } from '../result/timeseries-point.js';
import { latencyHistogramChart } from './charts/histogram.js';
import type { Chart } from './charts/render.js';
import { cpuVsDeliveriesChart, memoryVsConnectionsChart } from './charts/resource-fit.js';
import { resourcesChart } from './charts/resources.js';
import { timelineChart } from './charts/timeline.js';
import { deliveryVsLoadChart, latencyVsLoadChart } from './charts/vs-load.js';

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
