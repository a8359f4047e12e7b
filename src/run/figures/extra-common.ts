/**
 * Pieces the scenarios' figures (StepResult.extra, ./extras.ts) share: a latency summary, the
 * step's join replies and errors, when a sender's socket holds a backlog, a latency in words.
 */
import type { StepCollected } from '../../load/ipc.js';
import {
  createHistogram,
  decodeHistogram,
  percentilesOf,
  type Histogram,
} from '../../measure/histogram.js';
import type { LatencySummaryMs } from '../../result/extra.js';
import { r1 } from '../../util/round.js';

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
