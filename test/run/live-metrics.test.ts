/**
 * Live metrics against known seconds: counters are the sums of the seconds fed, gauges the
 * last second, the latency histogram holds exactly the recorded deliveries in their buckets,
 * losses arrive with the step, and both exposition formats carry the same figures.
 */
import { describe, expect, it } from 'vitest';
import { createHistogram, encodeHistogram, recordMs } from '../../src/measure/histogram.js';
import type { SecondStats } from '../../src/generator/ipc.js';
import type { StepResult } from '../../src/result/result.js';
import type { TimeseriesPoint } from '../../src/result/timeseries-point.js';
import { LiveMetrics } from '../../src/run/live-metrics.js';
import { serveLiveMetrics } from '../../src/run/metrics-server.js';
import type { SecondRecord } from '../../src/figures/timeline.js';

function worker(latenciesMs: number[], errorReasons: Record<string, number> = {}): SecondStats {
  const h = createHistogram();
  for (const ms of latenciesMs) recordMs(h, ms);
  return {
    type: 'second',
    worker: 0,
    t: 0,
    open: 0,
    joined: 0,
    joins: 0,
    sent: 0,
    acked: 0,
    acksPending: 0,
    received: latenciesMs.length,
    bytes: 0,
    errors: 0,
    disconnects: 0,
    histogram: encodeHistogram(h),
    health: { cpuPct: 10, lagP99Ms: 5 } as SecondStats['health'],
    errorReasons,
  };
}

function second(p: Partial<TimeseriesPoint>, workers: SecondStats[]): SecondRecord {
  const point = {
    t: 1,
    step: 1,
    phase: 'steady',
    connections_open: 0,
    joined: 0,
    joins_per_s: 0,
    sent_per_s: 0,
    acked_per_s: 0,
    acks_pending: 0,
    delivered_per_s: 0,
    sent_per_s_60s: 0,
    delivered_per_s_60s: 0,
    delivery_p50_ms: null,
    delivery_p95_ms: null,
    delivery_p99_ms: null,
    errors: 0,
    disconnects: 0,
    server_cpu_pct: 12.5,
    server_rss_mb: 2,
    generator_cpu_pct: 30,
    generator_lag_p99_ms: 4,
    ...p,
  } as TimeseriesPoint;
  return { point, workers, server: null };
}

/** `name{labels} value` lines of an exposition text, as a map. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const i = line.lastIndexOf(' ');
    out.set(line.slice(0, i), Number(line.slice(i + 1)));
  }
  return out;
}

describe('LiveMetrics', () => {
  it('counts what the seconds and steps carried, exactly', async () => {
    const m = new LiveMetrics();
    m.second(
      second(
        {
          connections_open: 10,
          joined: 9,
          joins_per_s: 9,
          sent_per_s: 4,
          acked_per_s: 3,
          delivered_per_s: 3,
          phase: 'ramp',
        },
        [worker([0.5, 3], { unauthorized: 1 }), worker([40])],
      ),
      10,
    );
    m.second(
      second(
        {
          connections_open: 8,
          joined: 8,
          joins_per_s: 0,
          sent_per_s: 5,
          acked_per_s: 5,
          delivered_per_s: 2,
          disconnects: 2,
          step: 2,
        },
        [worker([3, 2000], { unauthorized: 2, timeout: 1 })],
      ),
      20,
    );
    m.step({ messages: { lost: 7 }, verdict: 'stable' } as StepResult);
    const s = samples((await m.render(undefined)).body);
    expect(s.get('rtcap_connections{state="open"}')).toBe(8);
    expect(s.get('rtcap_connections{state="joined"}')).toBe(8);
    expect(s.get('rtcap_joins_total')).toBe(9);
    expect(s.get('rtcap_sends_total')).toBe(9);
    expect(s.get('rtcap_acks_total')).toBe(8);
    expect(s.get('rtcap_deliveries_total')).toBe(5);
    expect(s.get('rtcap_disconnects_total')).toBe(2);
    expect(s.get('rtcap_losses_total')).toBe(7);
    expect(s.get('rtcap_errors_total{reason="unauthorized"}')).toBe(3);
    expect(s.get('rtcap_errors_total{reason="timeout"}')).toBe(1);
    expect(s.get('rtcap_step')).toBe(2);
    expect(s.get('rtcap_step_target_connections')).toBe(20);
    expect(s.get('rtcap_phase{phase="steady"}')).toBe(1);
    expect(s.get('rtcap_phase{phase="ramp"}')).toBe(0);
    expect(s.get('rtcap_steps_completed_total{verdict="stable"}')).toBe(1);
    // 0.5 ms, 3 ms, 3 ms, 40 ms, 2 s.
    expect(s.get('rtcap_delivery_latency_seconds_bucket{le="0.001"}')).toBe(1);
    expect(s.get('rtcap_delivery_latency_seconds_bucket{le="0.0025"}')).toBe(1);
    expect(s.get('rtcap_delivery_latency_seconds_bucket{le="0.005"}')).toBe(3);
    expect(s.get('rtcap_delivery_latency_seconds_bucket{le="0.05"}')).toBe(4);
    expect(s.get('rtcap_delivery_latency_seconds_bucket{le="1"}')).toBe(4);
    expect(s.get('rtcap_delivery_latency_seconds_bucket{le="2.5"}')).toBe(5);
    expect(s.get('rtcap_delivery_latency_seconds_bucket{le="+Inf"}')).toBe(5);
    expect(s.get('rtcap_delivery_latency_seconds_count')).toBe(5);
    expect(s.get('rtcap_delivery_latency_seconds_sum')).toBeCloseTo(2.0465, 2);
  });

  it('serves Prometheus text by default and OpenMetrics when asked, with the same figures', async () => {
    const live = await serveLiveMetrics({ port: 0 });
    try {
      live.metrics.second(second({ sent_per_s: 6, delivered_per_s: 1 }, [worker([1])]), 1);
      const prom = await fetch(live.url);
      expect(prom.headers.get('content-type')).toContain('text/plain; version=0.0.4');
      const promText = await prom.text();
      expect(samples(promText).get('rtcap_sends_total')).toBe(6);
      expect(promText).toContain('# TYPE rtcap_sends_total counter');
      const om = await fetch(live.url, {
        headers: { accept: 'application/openmetrics-text; version=1.0.0' },
      });
      expect(om.headers.get('content-type')).toContain('application/openmetrics-text');
      const omText = await om.text();
      expect(samples(omText).get('rtcap_sends_total')).toBe(6);
      expect(omText).toContain('# TYPE rtcap_sends counter');
      expect(omText.trimEnd().endsWith('# EOF')).toBe(true);
      // The Prometheus text is unchanged by an OpenMetrics scrape in between.
      expect(await (await fetch(live.url)).text()).toBe(promText);
      expect((await fetch(live.url.replace('/metrics', '/'))).status).toBe(404);
    } finally {
      await live.close();
    }
  });

  it('a port in use is one clear error', async () => {
    const a = await serveLiveMetrics({ port: 0 });
    try {
      await expect(serveLiveMetrics({ port: a.port })).rejects.toThrow(
        `--metrics-port ${a.port}: cannot listen on 127.0.0.1:${a.port} (EADDRINUSE)`,
      );
    } finally {
      await a.close();
    }
  });
});

describe('docs/grafana-rtcap.json', () => {
  it('queries only metrics rtcap serves', async () => {
    const { readFileSync } = await import('node:fs');
    const dashboard = readFileSync(
      new URL('../../docs/grafana-rtcap.json', import.meta.url),
      'utf8',
    );
    const queried = new Set([...dashboard.matchAll(/\brtcap_[a-z0-9_]+/g)].map((m) => m[0]));
    const m = new LiveMetrics();
    m.second(second({}, [worker([1])]), 1);
    const text = (await m.render(undefined)).body;
    // Declared metrics (a labelled counter has no sample before its first label) and sample names
    // (_bucket, _count).
    const served = new Set([
      ...[...text.matchAll(/^# TYPE (\S+)/gm)].map((x) => x[1]),
      ...[...samples(text).keys()].map((k) => k.split('{')[0]),
    ]);
    expect(queried.size).toBeGreaterThan(10);
    for (const name of queried) expect(served, name).toContain(name);
  });
});
