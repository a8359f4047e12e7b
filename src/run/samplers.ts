/**
 * The run's once-a-second samplers: the server's CPU and memory (its process tree when it is
 * local, its Prometheus endpoint otherwise) and, for steps that insert rows, the server's
 * poller gauges. Each keeps a bounded history for the step figures.
 */
import { isLoopbackHost } from '../client/url.js';
import { findListeningPid } from '../monitor/listener.js';
import { ProcTreeSampler } from '../monitor/proc.js';
import { PrometheusSampler } from '../monitor/prometheus.js';
import type { ResourceSample, ResourceSampler } from '../monitor/types.js';
import { GaugeProbe, POLLER_GAUGES, type GaugeSample } from '../monitor/gauges.js';
import type { Profile } from '../profile/schema.js';
import { HostSampler, type HostSample } from '../monitor/host.js';

/** Samples kept (a long run drops the oldest thousand at a time). */
const HISTORY_MAX = 4000;

function keepBounded<T>(list: T[], x: T): void {
  list.push(x);
  if (list.length > HISTORY_MAX) list.splice(0, 1000);
}

/** A server process on this machine and how rtcap knows it. */
export interface LocalServer {
  pid: number;
  /** What the report says about where server CPU and memory come from. */
  source: string;
}

/**
 * The server's process when it runs on this machine: the built-in one rtcap started, the pid
 * given (target.server_pid), or — for a loopback URL only, never a remote one — the process
 * listening on the URL's port (a server the user started by hand).
 */
export function localServerOf(
  profile: Profile,
  startedPid: number | null,
  targetUrl: string,
): LocalServer | null {
  const given = startedPid ?? profile.target.server_pid ?? null;
  if (given) return { pid: given, source: `local process tree of pid ${given} (/proc)` };
  if (!isLoopbackHost(targetUrl)) return null;
  const url = new URL(targetUrl);
  const port =
    Number(url.port) || (url.protocol === 'wss:' || url.protocol === 'https:' ? 443 : 80);
  const pid = findListeningPid(port);
  if (pid === null) return null;
  return {
    pid,
    source: `pid ${pid} found listening on ${url.hostname}:${port}, its process tree sampled (/proc)`,
  };
}

/** A local server is sampled from /proc; a remote one from its metrics, if any. */
export function serverSamplerFor(
  profile: Profile,
  local: LocalServer | null,
): ResourceSampler | null {
  if (local) return new ProcTreeSampler(local.pid, undefined, local.source);
  if (profile.target.metrics_url)
    return new PrometheusSampler(
      profile.target.metrics_url,
      profile.target.metrics_token,
      profile.target.instance.vcpus,
    );
  return null;
}

export class RunSamplers {
  readonly serverSamples: ResourceSample[] = [];
  readonly hostSamples: HostSample[] = [];
  readonly gaugeSamples: GaugeSample[] = [];
  /**
   * The server's RSS at its first sample, taken once it is ready and before any generator
   * connection: the baseline of server.rss_per_connection_kb. Null: not sampled.
   */
  serverIdleRssMb: number | null = null;
  private timers: NodeJS.Timeout[] = [];

  /** Takes a first server sample (CPU needs two) and samples every second after it. */
  async startServer(
    sampler: ResourceSampler | null,
    onSample: (s: ResourceSample) => void,
  ): Promise<void> {
    if (!sampler) return;
    this.serverIdleRssMb = (await sampler.sample()).rssMb;
    this.timers.push(
      setInterval(() => {
        void sampler.sample().then((x) => {
          keepBounded(this.serverSamples, x);
          onSample(x);
        });
      }, 1000),
    );
  }

  /** Samples the generator host every second (its first sample primes the network rates). */
  async startHost(loopbackTarget: boolean): Promise<void> {
    const sampler = new HostSampler(loopbackTarget);
    await sampler.sample().catch(() => undefined);
    this.timers.push(
      setInterval(() => {
        sampler.sample().then(
          (x) => keepBounded(this.hostSamples, x),
          () => undefined,
        );
      }, 1000),
    );
  }

  /** Scrapes the poller gauges every second (no token for the built-in server). */
  startGauges(url: string | null, token: string | undefined): void {
    if (!url) return;
    const probe = new GaugeProbe(url, token, POLLER_GAUGES);
    this.timers.push(
      setInterval(() => {
        void probe.sample().then((x) => {
          if (x) keepBounded(this.gaugeSamples, x);
        });
      }, 1000),
    );
  }

  stop(): void {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
  }
}
