/**
 * Samples a server's CPU and memory from a Prometheus endpoint (docs/ARCHITECTURE.md "Where server
 * CPU and memory come from"): the server's own /metrics (prom-client's process_* metrics, as the
 * built-in server serves; Supabase Realtime's osmon_* and beam_memory_*), or node_exporter on
 * its machine (node_cpu_seconds_total, node_memory_*). The source actually used is named in
 * the report.
 */
import type { ResourceSample, ResourceSampler } from './types.js';
import { redactUrl } from '../redact/redact.js';

export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the Prometheus text exposition format (the subset servers emit: no timestamps needed). */
export function parsePrometheusText(text: string): MetricSample[] {
  const out: MetricSample[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+\d+)?$/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    if (m[3]) {
      const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
      let l: RegExpExecArray | null;
      while ((l = re.exec(m[3])) !== null) labels[l[1]] = l[2].replace(/\\(.)/g, '$1');
    }
    const v = m[4] === '+Inf' ? Infinity : m[4] === '-Inf' ? -Infinity : Number(m[4]);
    if (!Number.isNaN(v)) out.push({ name: m[1], labels, value: v });
  }
  return out;
}

const sum = (xs: MetricSample[]) => xs.reduce((a, x) => a + x.value, 0);

interface Reading {
  cpuSeconds: number | null;
  /** CPU already as cores busy (a gauge), when the endpoint gives no counter. */
  cpuCoresGauge: number | null;
  rssBytes: number | null;
  source: string;
}

/** Picks the best CPU and memory figures an endpoint offers. */
export function readResources(samples: MetricSample[], vcpus: number): Reading | null {
  const by = (name: string) => samples.filter((s) => s.name === name);
  const procCpu = by('process_cpu_seconds_total');
  const procRss = by('process_resident_memory_bytes');
  if (procCpu.length || procRss.length) {
    return {
      cpuSeconds: procCpu.length ? sum(procCpu) : null,
      cpuCoresGauge: null,
      rssBytes: procRss.length ? sum(procRss) : null,
      source: 'process_cpu_seconds_total / process_resident_memory_bytes',
    };
  }
  const nodeCpu = by('node_cpu_seconds_total').filter(
    (s) => s.labels.mode !== 'idle' && s.labels.mode !== 'iowait' && s.labels.mode !== 'steal',
  );
  const memTotal = by('node_memory_MemTotal_bytes');
  const memAvail = by('node_memory_MemAvailable_bytes');
  if (nodeCpu.length) {
    return {
      cpuSeconds: sum(nodeCpu),
      cpuCoresGauge: null,
      rssBytes: memTotal.length && memAvail.length ? sum(memTotal) - sum(memAvail) : null,
      source: 'node_exporter (node_cpu_seconds_total, MemTotal − MemAvailable)',
    };
  }
  const osmon = by('osmon_cpu_util');
  const beam = by('beam_memory_allocated_bytes');
  if (osmon.length || beam.length) {
    // osmon_cpu_util is the host's CPU utilisation in percent of all its CPUs.
    return {
      cpuSeconds: null,
      cpuCoresGauge: osmon.length ? (osmon[0].value / 100) * vcpus : null,
      rssBytes: beam.length ? sum(beam) : null,
      source: 'Supabase Realtime metrics (osmon_cpu_util, beam_memory_allocated_bytes)',
    };
  }
  return null;
}

export class PrometheusSampler implements ResourceSampler {
  source: string;
  private last: { t: number; cpuSeconds: number } | null = null;

  constructor(
    private readonly url: string,
    private readonly token: string | undefined,
    private readonly vcpus: number,
    private readonly fetchText: (
      url: string,
      headers: Record<string, string>,
    ) => Promise<string> = defaultFetch,
  ) {
    this.source = `Prometheus endpoint ${redactUrl(url)}`;
  }

  async sample(): Promise<ResourceSample> {
    const t = Date.now();
    const empty = { t, cpuCores: null, rssMb: null, dbCpuCores: null, dbRssMb: null };
    let text: string;
    try {
      text = await this.fetchText(
        this.url,
        this.token ? { authorization: `Bearer ${this.token}` } : {},
      );
    } catch {
      return empty;
    }
    const r = readResources(parsePrometheusText(text), this.vcpus);
    if (!r) return empty;
    this.source = `Prometheus endpoint ${redactUrl(this.url)}: ${r.source}`;
    let cpuCores: number | null = r.cpuCoresGauge;
    if (r.cpuSeconds !== null) {
      if (this.last && t > this.last.t)
        cpuCores = Math.max(0, (r.cpuSeconds - this.last.cpuSeconds) / ((t - this.last.t) / 1000));
      this.last = { t, cpuSeconds: r.cpuSeconds };
    }
    return {
      t,
      cpuCores,
      rssMb: r.rssBytes === null ? null : r.rssBytes / 1048576,
      dbCpuCores: null,
      dbRssMb: null,
    };
  }
}

async function defaultFetch(url: string, headers: Record<string, string>): Promise<string> {
  const res = await fetch(url, { headers, signal: AbortSignal.timeout(2000) });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  return res.text();
}
