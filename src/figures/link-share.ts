/**
 * The emulated link's known share of a step's first-receipt latency, and the server's part (the
 * latency less that share). A message a client sends crosses the sender's uplink and the
 * receiver's downlink (broadcast, presence: 2 × delay); a row the coordinator inserts reaches
 * the database directly and crosses only the receiver's downlink (Postgres Changes: 1 × delay).
 * Jitter (uniform, mean 0) spreads one receipt's share by up to ± jitter per crossing.
 *
 * The share is the link as configured, not measured: the server's part is trustworthy as far as
 * the emulation keeps to it (src/link: a userspace relay, or the kernel's netem).
 */
import type { Percentiles } from '../result/result.js';
import type { TrafficKind } from '../scenarios/types.js';
import { r3 } from '../util/round.js';

/** The link as the profile asks for it (profile generator.link): ms, ms, percent. */
interface LinkSpec {
  delay: number;
  jitter: number;
}

/** step.extra.link_latency */
export interface LinkLatencyShare {
  /** Link crossings in a first receipt of the step's primary traffic (2, or 1 for inserts). */
  crossings: number;
  /** The link's known share of every first receipt: crossings × delay (ms). */
  link_share_ms: number;
  /** What jitter may add to or take from one receipt's share: ± crossings × jitter (ms). */
  jitter_spread_ms: number;
  /** latency_ms less link_share_ms: the server's part (ms; the count is latency_ms's). */
  server_latency_ms: Percentiles;
}

/** Link crossings between a message being sent and its first receipt, by traffic kind. */
export function crossingsOf(kind: TrafficKind): number {
  return kind === 'changes' ? 1 : 2;
}

export function linkLatencyShare(
  spec: LinkSpec,
  kind: TrafficKind,
  latency: Percentiles,
): LinkLatencyShare {
  const crossings = crossingsOf(kind);
  const share = crossings * spec.delay;
  const less = (v: number | null) => (v === null ? null : r3(v - share));
  const server: Percentiles = {
    ...latency,
    p50: less(latency.p50),
    p95: less(latency.p95),
    p99: less(latency.p99),
    p999: less(latency.p999),
    max: less(latency.max),
    mean: less(latency.mean),
  };
  return {
    crossings,
    link_share_ms: share,
    jitter_spread_ms: crossings * spec.jitter,
    server_latency_ms: server,
  };
}
