/**
 * Pieces the scenarios' figures (StepResult.extra, ./extras.ts) share: a latency summary, the
 * step's join replies, when a sender's socket holds a backlog, a latency in words.
 */
import type { StepCollected } from '../generator/ipc.js';
import {
  mergeEncoded,
  percentilesOf,
  pickPercentiles,
  type Histogram,
} from '../measure/histogram.js';
import type { LatencySummaryMs } from '../result/extra.js';
import { r1 } from '../util/round.js';

/** p50 / p95 / p99 of a histogram, or null when it holds nothing. */
export function latencySummary(h: Histogram | null): LatencySummaryMs | null {
  return h && h.totalCount > 0 ? pickPercentiles(percentilesOf(h)) : null;
}

/** The merged join reply latency (push → ok reply) of a step's successful joins. */
export function joinReplyHistogram(collected: readonly StepCollected[]): Histogram {
  return mergeEncoded(collected.map((c) => c.joinReplyLatencyHistogram));
}

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
