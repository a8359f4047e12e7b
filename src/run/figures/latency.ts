/** Latency histograms the generator processes recorded, merged over processes. */
import { createHistogram, decodeHistogram, type Histogram } from '../../measure/histogram.js';
import type { Percentiles } from '../../result/result.js';
import type { StepCollected } from '../../load/ipc.js';

export interface StepHistograms {
  /** Join latency from the scheduled join time. */
  join: Histogram;
  /** Ack latency (load.ack) from the scheduled send time. */
  ack: Histogram;
  /** Postgres Changes: insert commit latency. */
  commit: Histogram;
}

export function mergeHistograms(
  collected: ReadonlyArray<
    Pick<StepCollected, 'joinLatencyHistogram' | 'ackLatencyHistogram' | 'commitLatencyHistogram'>
  >,
): StepHistograms {
  const out: StepHistograms = {
    join: createHistogram(),
    ack: createHistogram(),
    commit: createHistogram(),
  };
  for (const c of collected) {
    out.join.add(decodeHistogram(c.joinLatencyHistogram));
    if (c.ackLatencyHistogram) out.ack.add(decodeHistogram(c.ackLatencyHistogram));
    if (c.commitLatencyHistogram) out.commit.add(decodeHistogram(c.commitLatencyHistogram));
  }
  return out;
}

/** p50, p95 and p99 only (for extra figures). */
export function pickPercentiles(p: Percentiles): {
  p50: number | null;
  p95: number | null;
  p99: number | null;
} {
  return { p50: p.p50, p95: p.p95, p99: p.p99 };
}
