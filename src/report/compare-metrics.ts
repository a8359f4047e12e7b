/**
 * The figures `rtcap compare` sets side by side, in the order it prints them: how each value and
 * each difference is printed, and which direction is better for the server.
 */
import { fmtInt, fmtMs, fmtPct, fmtRate, fmtRatioPct } from '../model/format.js';
import type { StepMetricName } from '../model/metrics.js';

export type Better = 'higher' | 'lower' | 'none';

export interface MetricSpec {
  metric: StepMetricName;
  label: string;
  fmt: (v: number | null) => string;
  /** How the difference is printed: absolute in the metric's unit, or percentage points. */
  delta: (d: number) => string;
  better: Better;
}

/** The sign a difference is printed with: +, − (minus sign) or ± for none. */
export const sign = (d: number) => (d > 0 ? '+' : d < 0 ? '−' : '±');
const abs = (f: (v: number) => string) => (d: number) => `${sign(d)}${f(Math.abs(d))}`;

export const COMPARED_METRICS: MetricSpec[] = [
  {
    metric: 'connections',
    label: 'connections joined',
    fmt: fmtInt,
    delta: abs(fmtInt),
    better: 'higher',
  },
  {
    metric: 'failed',
    label: 'connections failed',
    fmt: fmtInt,
    delta: abs(fmtInt),
    better: 'lower',
  },
  {
    metric: 'disconnected',
    label: 'disconnected',
    fmt: fmtInt,
    delta: abs(fmtInt),
    better: 'lower',
  },
  {
    metric: 'sent_per_s',
    label: 'sent/s',
    fmt: fmtRate,
    delta: abs((v) => fmtRate(v)),
    better: 'none',
  },
  {
    metric: 'delivered_per_s',
    label: 'delivered/s',
    fmt: fmtRate,
    delta: abs((v) => fmtRate(v)),
    better: 'none',
  },
  {
    metric: 'delivery_rate',
    label: 'delivery',
    fmt: fmtRatioPct,
    delta: (d) => `${sign(d)}${Math.abs(d * 100).toFixed(2)} pp`,
    better: 'higher',
  },
  { metric: 'p50_ms', label: 'first receive p50', fmt: fmtMs, delta: abs(fmtMs), better: 'lower' },
  { metric: 'p95_ms', label: 'first receive p95', fmt: fmtMs, delta: abs(fmtMs), better: 'lower' },
  { metric: 'p99_ms', label: 'first receive p99', fmt: fmtMs, delta: abs(fmtMs), better: 'lower' },
  {
    metric: 'fanout_p95_ms',
    label: 'fan-out span p95',
    fmt: fmtMs,
    delta: abs(fmtMs),
    better: 'lower',
  },
  {
    metric: 'cpu_pct',
    label: 'server CPU',
    fmt: (v) => fmtPct(v),
    delta: (d) => `${sign(d)}${Math.abs(d).toFixed(1)} pp`,
    better: 'lower',
  },
  {
    metric: 'mem_pct',
    label: 'server memory',
    fmt: (v) => fmtPct(v),
    delta: (d) => `${sign(d)}${Math.abs(d).toFixed(1)} pp`,
    better: 'lower',
  },
  { metric: 'errors', label: 'errors', fmt: fmtInt, delta: abs(fmtInt), better: 'lower' },
  {
    metric: 'generator_cpu_pct',
    label: 'generator CPU',
    fmt: (v) => fmtPct(v, 0),
    delta: (d) => `${sign(d)}${Math.abs(d).toFixed(0)} pp`,
    better: 'none',
  },
];
