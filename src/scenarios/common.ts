/**
 * Pieces every scenario plan shares.
 */
import type { StepCollected } from '../load/ipc.js';
import {
  createHistogram,
  decodeHistogram,
  percentilesOf,
  type Histogram,
} from '../measure/histogram.js';
import { REALTIME_TOPIC_PREFIX } from '../protocol/constants.js';
import type { Profile, Step } from '../profile/schema.js';
import type { LatencySummaryMs } from '../result/extra.js';
import type { ReconnectPolicy } from './types.js';
import { r1 } from '../util/round.js';

export function reconnectPolicy(profile: Profile): ReconnectPolicy | null {
  const r = profile.load.reconnect;
  if (!r?.enabled) return null;
  return {
    initialBackoffMs: r.initial_backoff,
    maxBackoffMs: r.max_backoff,
    multiplier: r.multiplier,
    jitter: r.jitter,
    maxAttempts: r.max_attempts,
  };
}

/** Messages in a steady window of `durationMs` at `ratePerS`. */
export function countAt(ratePerS: number, durationMs: number): number {
  return Math.floor((ratePerS * durationMs) / 1000);
}

// ---------------------------------------------------------------- private channels, rooms, step
// figures (broadcast-private, join-rate, payload-size, write-only)

/**
 * A private topic on the wire: `realtime:<private.topic_prefix><name>` (docs/PROTOCOL.md §3.1, §6).
 */
export function privateTopic(profile: Profile, name: string): string {
  return `${REALTIME_TOPIC_PREFIX}${profile.private.topic_prefix}${name}`;
}

/** Claims of connection `conn`'s own access_token: one user per connection (seed §2, §4). */
export function userClaims(profile: Profile, conn: number): Record<string, unknown> {
  return { role: profile.private.role, sub: `${profile.private.sub_prefix}${conn}` };
}

export interface RoomTopology {
  rooms: number;
  members: number;
  /** rooms × members: the connections the step holds. */
  connections: number;
}

/**
 * Rooms × members of a step (schema: "connections = rooms × members when both are given").
 * With one of them, the other is what the step's connections allow (whole rooms only);
 * with neither, one room holds every connection.
 */
export function roomTopology(s: Step): RoomTopology {
  let rooms: number;
  let members: number;
  if (s.rooms !== undefined && s.members !== undefined) {
    rooms = s.rooms;
    members = s.members;
  } else if (s.rooms !== undefined) {
    rooms = s.rooms;
    members = Math.floor(s.connections / s.rooms);
  } else if (s.members !== undefined) {
    members = s.members;
    rooms = Math.floor(s.connections / s.members);
  } else {
    rooms = s.connections > 0 ? 1 : 0;
    members = s.connections;
  }
  if (rooms === 0 || members === 0) return { rooms: 0, members: 0, connections: 0 };
  return { rooms, members, connections: rooms * members };
}

/** p50 / p95 / p99 of a histogram, or null when it holds nothing. */
export function latencySummary(h: Histogram | null): LatencySummaryMs | null {
  if (!h || h.totalCount === 0) return null;
  const p = percentilesOf(h);
  return { p50: p.p50, p95: p.p95, p99: p.p99 };
}

/** The merged join reply latency (push → ok reply) of a step's successful joins. */
export function joinReplyHistogram(collected: readonly StepCollected[]): Histogram {
  const h = createHistogram();
  for (const c of collected)
    if (c.joinReplyLatencyHistogram) h.add(decodeHistogram(c.joinReplyLatencyHistogram));
  return h;
}

/** A step's errors by verbatim reason, summed over generator processes. */
export function stepErrors(collected: readonly StepCollected[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const c of collected)
    for (const [k, v] of Object.entries(c.errors)) out.set(k, (out.get(k) ?? 0) + v);
  return out;
}

export { steadySeconds } from '../measure/steady-seconds.js';
export { sumOf } from '../util/sum.js';

/**
 * Bytes in a sender's socket (ws bufferedAmount right after a send) that mean the server is
 * not reading: the kernel's buffers are already full when user space holds this much, so
 * more than two messages (and at least 64 KiB) waiting is a backlog, not a blip.
 */
export function senderBacklogBytes(payloadBytes: number): number {
  return Math.max(65_536, 2 * payloadBytes);
}

/**
 * "200.4 ms", "5,222 ms": a latency in a sentence, never rounded onto the bound it is compared
 * with.
 */
export function msText(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms).toLocaleString('en-US')} ms` : `${r1(ms)} ms`;
}
