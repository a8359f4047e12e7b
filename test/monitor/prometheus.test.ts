import { describe, expect, it } from 'vitest';
import {
  parsePrometheusText,
  PrometheusSampler,
  readResources,
} from '../../src/monitor/prometheus.js';

const PROM_CLIENT = `# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.
# TYPE process_cpu_seconds_total counter
process_cpu_seconds_total 12.5
# TYPE process_resident_memory_bytes gauge
process_resident_memory_bytes 104857600
realtime_connections{tenant="t1",worker="0"} 1000
`;

const NODE_EXPORTER = `node_cpu_seconds_total{cpu="0",mode="idle"} 1000
node_cpu_seconds_total{cpu="0",mode="user"} 30
node_cpu_seconds_total{cpu="0",mode="system"} 10
node_cpu_seconds_total{cpu="1",mode="user"} 20
node_memory_MemTotal_bytes 4294967296
node_memory_MemAvailable_bytes 1073741824
`;

describe('parsePrometheusText', () => {
  it('reads names, labels and values, skipping comments', () => {
    const s = parsePrometheusText(PROM_CLIENT);
    expect(s).toHaveLength(3);
    expect(s[2]).toEqual({
      name: 'realtime_connections',
      labels: { tenant: 't1', worker: '0' },
      value: 1000,
    });
  });
  it('unescapes label values and reads +Inf', () => {
    const s = parsePrometheusText('x_bucket{le="+Inf",path="a\\"b"} 5\ny +Inf\n');
    expect(s[0].labels).toEqual({ le: '+Inf', path: 'a"b' });
    expect(s[1].value).toBe(Infinity);
  });
});

describe('readResources', () => {
  it('prefers process metrics', () => {
    const r = readResources(parsePrometheusText(PROM_CLIENT), 2)!;
    expect(r.cpuSeconds).toBe(12.5);
    expect(r.rssBytes).toBe(104857600);
  });
  it('uses node_exporter: non-idle CPU seconds and MemTotal − MemAvailable', () => {
    const r = readResources(parsePrometheusText(NODE_EXPORTER), 2)!;
    expect(r.cpuSeconds).toBe(60);
    expect(r.rssBytes).toBe(3 * 1073741824);
  });
  it('uses Supabase osmon_cpu_util as a share of all vCPUs', () => {
    const r = readResources(
      parsePrometheusText('osmon_cpu_util 50\nbeam_memory_allocated_bytes 2048\n'),
      4,
    )!;
    expect(r.cpuCoresGauge).toBe(2);
    expect(r.rssBytes).toBe(2048);
  });
  it('returns null for an endpoint with none of them', () => {
    expect(readResources(parsePrometheusText('foo 1\n'), 2)).toBeNull();
  });
});

describe('PrometheusSampler', () => {
  it('turns the CPU counter into cores busy between samples and sends the bearer token', async () => {
    const texts = [
      'process_cpu_seconds_total 10\nprocess_resident_memory_bytes 1048576\n',
      'process_cpu_seconds_total 11.5\nprocess_resident_memory_bytes 2097152\n',
    ];
    const seen: Array<Record<string, string>> = [];
    const s = new PrometheusSampler('http://127.0.0.1:1/metrics', 'tok', 2, async (_u, h) => {
      seen.push(h);
      return texts.shift()!;
    });
    const a = await s.sample();
    expect(a.cpuCores).toBeNull();
    expect(a.rssMb).toBe(1);
    await new Promise((r) => setTimeout(r, 20));
    const b = await s.sample();
    expect(b.cpuCores).toBeGreaterThan(0);
    expect(b.rssMb).toBe(2);
    expect(seen[0]).toEqual({ authorization: 'Bearer tok' });
    expect(s.source).toContain('process_cpu_seconds_total');
  });
  it('gives nulls, never zeros, when the endpoint fails', async () => {
    const s = new PrometheusSampler('http://127.0.0.1:1/metrics', undefined, 2, async () => {
      throw new Error('refused');
    });
    const x = await s.sample();
    expect(x.cpuCores).toBeNull();
    expect(x.rssMb).toBeNull();
  });
});
