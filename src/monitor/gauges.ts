/**
 * Scrapes named gauges from a server's Prometheus endpoint once a second, for figures a
 * scenario reports beside its own measurements — e.g. the Postgres Changes poller of docs/METHOD.md
 * §6 (its poller peak). The built-in server serves them at /metrics (src/server/metrics.ts); a
 * server without them gives no samples, and the figure is then null, never 0.
 */
import { parsePrometheusText } from './prometheus.js';

export interface GaugeSample {
  /** Epoch ms of the scrape. */
  t: number;
  /** Gauge name → value (summed over label sets). Names missing or NaN are absent. */
  values: Record<string, number>;
}

/** The built-in server's poller gauges (src/server/metrics.ts). */
export const POLLER_GAUGES = [
  'realtime_replication_poller_last_poll_ms',
  'realtime_replication_poller_lag_ms',
] as const;

/** http(s)://host:port/metrics of a ws(s):// socket URL. */
export function metricsUrlOf(socketUrl: string): string {
  const u = new URL(socketUrl);
  u.protocol = u.protocol === 'wss:' ? 'https:' : 'http:';
  u.pathname = '/metrics';
  u.search = '';
  return u.toString();
}

export class GaugeProbe {
  constructor(
    private readonly url: string,
    private readonly token: string | undefined,
    private readonly names: readonly string[],
    private readonly fetchText: (
      url: string,
      headers: Record<string, string>,
    ) => Promise<string> = defaultFetch,
  ) {}

  /** One scrape; null when the endpoint did not answer. */
  async sample(): Promise<GaugeSample | null> {
    const t = Date.now();
    let text: string;
    try {
      text = await this.fetchText(
        this.url,
        this.token ? { authorization: `Bearer ${this.token}` } : {},
      );
    } catch {
      return null;
    }
    const values: Record<string, number> = {};
    for (const s of parsePrometheusText(text)) {
      if (!this.names.includes(s.name) || !Number.isFinite(s.value)) continue;
      values[s.name] = (values[s.name] ?? 0) + s.value;
    }
    return { t, values };
  }
}

/** The largest value of a gauge over samples in [fromMs, toMs], or null if none. */
export function gaugeMax(
  samples: readonly GaugeSample[],
  name: string,
  fromMs: number,
  toMs: number,
): number | null {
  let best: number | null = null;
  for (const s of samples) {
    if (s.t < fromMs || s.t > toMs) continue;
    const v = s.values[name];
    if (v !== undefined && (best === null || v > best)) best = v;
  }
  return best;
}

async function defaultFetch(url: string, headers: Record<string, string>): Promise<string> {
  const res = await fetch(url, { headers, signal: AbortSignal.timeout(2000) });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  return res.text();
}
