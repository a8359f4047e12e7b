/** Latency histograms the generator processes recorded, merged over processes. */
import { mergeEncoded, type Histogram } from '../measure/histogram.js';
import type { StepCollected } from '../generator/ipc.js';

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
  return {
    join: mergeEncoded(collected.map((c) => c.joinLatencyHistogram)),
    ack: mergeEncoded(collected.map((c) => c.ackLatencyHistogram)),
    commit: mergeEncoded(collected.map((c) => c.commitLatencyHistogram)),
  };
}
