/**
 * Latency histograms: HdrHistogram (hdr-histogram-js, pure JS) recording microseconds, so
 * p99.9 of a sub-millisecond loopback run is still resolved, up to one hour.
 * Histograms cross process boundaries as compressed base64 and merge losslessly.
 */
import * as hdr from 'hdr-histogram-js';
import type { Percentiles } from '../report/result.js';

export type Histogram = hdr.Histogram;

const HIGHEST_US = 3_600_000_000; // one hour

export function createHistogram(): Histogram {
  return hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: HIGHEST_US,
    numberOfSignificantValueDigits: 3,
    bitBucketSize: 32,
    useWebAssembly: false,
    autoResize: false,
  });
}

/** Records a latency in ms; negative values (clock skew across processes) are clamped to 0. */
export function recordMs(h: Histogram, ms: number): void {
  if (Number.isNaN(ms)) return;
  let us = Math.round(ms * 1000);
  if (us < 1) us = 1;
  else if (us > HIGHEST_US) us = HIGHEST_US;
  h.recordValue(us);
}

export function encodeHistogram(h: Histogram): string {
  return hdr.encodeIntoCompressedBase64(h);
}

export function decodeHistogram(encoded: string): Histogram {
  const decoded = hdr.decodeFromCompressedBase64(encoded, 32, false);
  // Re-home into our standard shape so later adds never overflow the range.
  const h = createHistogram();
  h.add(decoded);
  return h;
}

const round3 = (v: number) => Math.round(v * 1000) / 1000;

export function percentilesOf(h: Histogram | null): Percentiles {
  if (!h || h.totalCount === 0) {
    return { p50: null, p95: null, p99: null, p999: null, max: null, mean: null, count: 0 };
  }
  const ms = (us: number) => round3(us / 1000);
  // A percentile is the top of its HDR bucket, which can lie above the exact max recorded
  // here (one 10 ms sample gave p50 10.007, max 10): never report a percentile above the max.
  const at = (p: number) => ms(Math.min(h.getValueAtPercentile(p), h.maxValue));
  return {
    p50: at(50),
    p95: at(95),
    p99: at(99),
    p999: at(99.9),
    max: ms(h.maxValue),
    mean: ms(h.mean),
    count: h.totalCount,
  };
}

export function emptyPercentiles(): Percentiles {
  return percentilesOf(null);
}

/**
 * Counts per bucket for the report's histogram chart: counts[i] holds samples ≤ leMs[i]
 * (and above the previous bound), the last entry those above the last bound.
 */
export function compactHistogram(h: Histogram, leMs: readonly number[]): { le_ms: number[]; counts: number[] } {
  const counts = new Array<number>(leMs.length + 1).fill(0);
  if (h.totalCount === 0) return { le_ms: [...leMs], counts };
  let prev = 0;
  for (let i = 0; i < leMs.length; i++) {
    const below = countAtOrBelow(h, leMs[i] * 1000);
    counts[i] = below - prev;
    prev = below;
  }
  counts[leMs.length] = h.totalCount - prev;
  return { le_ms: [...leMs], counts };
}

function countAtOrBelow(h: Histogram, us: number): number {
  // HdrHistogram has no direct "count at or below"; sum the recorded values' buckets.
  let n = 0;
  const it = (h as unknown as { recordedValuesIterator: { reset(): void; hasNext(): boolean; next(): { valueIteratedTo: number; countAtValueIteratedTo: number } } }).recordedValuesIterator;
  it.reset();
  while (it.hasNext()) {
    const v = it.next();
    if (v.valueIteratedTo > us) break;
    n += v.countAtValueIteratedTo;
  }
  return n;
}
