/**
 * Latency histograms: HdrHistogram (hdr-histogram-js, pure JS) recording microseconds, so
 * p99.9 of a sub-millisecond loopback run is still resolved, up to one hour.
 * Histograms cross process boundaries as compressed base64 and merge losslessly.
 */
import { createRequire } from 'node:module';
import type * as hdr from 'hdr-histogram-js';
import { fewSampleKeys } from '../result/percentile-samples.js';
import type { LatencySummaryMs } from '../result/extra.js';
import type { Percentiles } from '../result/result.js';
import { r3 } from '../util/round.js';

export type Histogram = hdr.Histogram;

/*
 * The two files of hdr-histogram-js that rtcap uses — the 32-bit histogram and its V2
 * compressed codec — not its index: the index also loads the WebAssembly histogram (a base64
 * blob and pako), the log reader and writer (whose first Intl.NumberFormat alone is ≈ 40 ms)
 * and every other variant, ≈ 60 ms of start-up in every generator process and the
 * coordinator. These are the functions the index's build(),
 * encodeIntoCompressedBase64() and decodeFromCompressedBase64() call for a 32-bit,
 * non-WebAssembly histogram; test/measure/histogram.test.ts checks them against the index.
 */
const requireCjs = createRequire(import.meta.url);
const { default: Int32Histogram } = requireCjs(
  'hdr-histogram-js/dist/Int32Histogram.js',
) as typeof import('hdr-histogram-js/dist/Int32Histogram.js');
// Loading the codec also gives JsHistogram its encodeIntoCompressedBase64 method.
const codec = requireCjs(
  'hdr-histogram-js/dist/JsHistogram.encoding.js',
) as typeof import('hdr-histogram-js/dist/JsHistogram.encoding.js');

const HIGHEST_US = 3_600_000_000; // one hour

export function createHistogram(): Histogram {
  const h = new Int32Histogram(1, HIGHEST_US, 3);
  h.autoResize = false;
  return h;
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
  return (h as InstanceType<typeof Int32Histogram>).encodeIntoCompressedBase64();
}

export function decodeHistogram(encoded: string): Histogram {
  // As the index's decodeFromCompressedBase64(encoded, 32, false): base64, inflate, decode.
  const decoded = codec.doDecode(
    codec.decompress(new Uint8Array(Buffer.from(encoded.trim(), 'base64'))),
    32,
    0,
  );
  // Re-home into our standard shape so later adds never overflow the range.
  const h = createHistogram();
  h.add(decoded);
  return h;
}

/**
 * One histogram of every sample in the encoded ones (each process's or second's), the one way
 * rtcap merges histograms; a missing one (null, undefined, '') is skipped.
 */
export function mergeEncoded(encoded: Iterable<string | null | undefined>): Histogram {
  const h = createHistogram();
  for (const e of encoded) if (e) h.add(decodeHistogram(e));
  return h;
}

/** The parts of a JS histogram meanOf reads (public methods of hdr-histogram-js's JsHistogram). */
interface CountsView {
  totalCount: number;
  countsArrayLength: number;
  getCountAtIndex(index: number): number;
  valueFromIndex(index: number): number;
  highestEquivalentValue(value: number): number;
  medianEquivalentValue(value: number): number;
}

/**
 * The histogram's mean, exactly as hdr-histogram-js's `mean` computes it (each recorded
 * bucket's median equivalent value × its count, in index order, ÷ the total), read straight off
 * the counts: its getter walks every bucket through an iterator that computes two values per
 * bucket, ≈ 1 ms per histogram, which the coordinator paid for every merged second.
 */
export function meanOf(h: Histogram): number {
  const v = h as unknown as CountsView;
  const total = v.totalCount;
  if (total === 0) return 0;
  let sum = 0;
  let seen = 0;
  for (let i = 0; seen < total && i < v.countsArrayLength; i++) {
    const c = v.getCountAtIndex(i);
    if (c === 0) continue;
    seen += c;
    sum += v.medianEquivalentValue(v.highestEquivalentValue(v.valueFromIndex(i))) * c;
  }
  return sum / total;
}

export function percentilesOf(h: Histogram | null): Percentiles {
  if (!h || h.totalCount === 0) {
    return { p50: null, p95: null, p99: null, p999: null, max: null, mean: null, count: 0 };
  }
  const ms = (us: number) => r3(us / 1000);
  // A percentile is the top of its HDR bucket, which can lie above the exact max recorded
  // here (one 10 ms sample gave p50 10.007, max 10): never report a percentile above the max.
  const at = (p: number) => ms(Math.min(h.getValueAtPercentile(p), h.maxValue));
  return {
    p50: at(50),
    p95: at(95),
    p99: at(99),
    p999: at(99.9),
    max: ms(h.maxValue),
    mean: ms(meanOf(h)),
    count: h.totalCount,
    few_samples: fewSampleKeys(h.totalCount),
  };
}

/** p50, p95 and p99 only: the latency summary most figures carry. */
export function pickPercentiles(p: Percentiles): LatencySummaryMs {
  return { p50: p.p50, p95: p.p95, p99: p.p99 };
}

export function emptyPercentiles(): Percentiles {
  return percentilesOf(null);
}

/**
 * Counts per bucket for the report's histogram chart: counts[i] holds samples ≤ leMs[i]
 * (and above the previous bound), the last entry those above the last bound.
 */
export function compactHistogram(
  h: Histogram,
  leMs: readonly number[],
): { le_ms: number[]; counts: number[] } {
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
  const it = (
    h as unknown as {
      recordedValuesIterator: {
        reset(): void;
        hasNext(): boolean;
        next(): { valueIteratedTo: number; countAtValueIteratedTo: number };
      };
    }
  ).recordedValuesIterator;
  it.reset();
  while (it.hasNext()) {
    const v = it.next();
    if (v.valueIteratedTo > us) break;
    n += v.countAtValueIteratedTo;
  }
  return n;
}
