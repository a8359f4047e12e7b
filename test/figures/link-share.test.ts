import { describe, expect, it } from 'vitest';
import { crossingsOf, linkLatencyShare } from '../../src/figures/link-share.js';
import type { Percentiles } from '../../src/result/result.js';

const latency: Percentiles = {
  p50: 140,
  p95: 152.5,
  p99: 160,
  p999: null,
  max: 170,
  mean: 141,
  count: 600,
};

describe('linkLatencyShare', () => {
  it('takes the sender uplink and receiver downlink off a broadcast (2 × delay)', () => {
    const s = linkLatencyShare({ delay: 50, jitter: 5 }, 'broadcast', latency);
    expect(s.crossings).toBe(2);
    expect(s.link_share_ms).toBe(100);
    expect(s.jitter_spread_ms).toBe(10);
    expect(s.server_latency_ms).toEqual({
      p50: 40,
      p95: 52.5,
      p99: 60,
      p999: null,
      max: 70,
      mean: 41,
      count: 600,
    });
  });

  it('takes only the downlink off an inserted row (it reaches the database directly)', () => {
    expect(crossingsOf('changes')).toBe(1);
    expect(crossingsOf('presence')).toBe(2);
    const s = linkLatencyShare({ delay: 20, jitter: 0 }, 'changes', latency);
    expect(s.link_share_ms).toBe(20);
    expect(s.server_latency_ms.p50).toBe(120);
  });
});
