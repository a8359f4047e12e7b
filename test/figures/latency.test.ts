import { describe, expect, it } from 'vitest';
import { mergeHistograms } from '../../src/figures/latency.js';
import { histogramOf } from '../support/step-context.js';

describe('merged latency histograms', () => {
  it('adds every process join, ack and commit latencies', () => {
    const h = mergeHistograms([
      {
        joinLatencyHistogram: histogramOf([10, 20]),
        ackLatencyHistogram: histogramOf([5]),
        commitLatencyHistogram: histogramOf([]),
      },
      {
        joinLatencyHistogram: histogramOf([30]),
        ackLatencyHistogram: histogramOf([7, 9]),
        commitLatencyHistogram: histogramOf([3]),
      },
    ] as never);
    expect([h.join.totalCount, h.ack.totalCount, h.commit.totalCount]).toEqual([3, 3, 1]);
  });
});
