/**
 * When a percentile rests on too few samples (docs/FIGURES.md "Percentiles and their samples"):
 * a pN is only a pN when at least MIN_SAMPLES_BEYOND samples lie beyond it, i.e. the histogram
 * holds at least MIN_SAMPLES_BEYOND ÷ (1 − N/100) samples — p50 20, p95 200, p99 1,000, p99.9
 * 10,000. Below that the figure is the largest few samples (p95 = p99 = max of 8 messages), and
 * it is marked wherever it is shown. Pure; no imports, so result writers and renderers share it.
 */

/** Samples that must lie beyond a percentile for it to be one. */
export const MIN_SAMPLES_BEYOND = 10;

export type PercentileKey = 'p50' | 'p95' | 'p99' | 'p999';

const SHARE_BEYOND: Record<PercentileKey, number> = { p50: 0.5, p95: 0.05, p99: 0.01, p999: 0.001 };

export const PERCENTILE_KEYS: readonly PercentileKey[] = ['p50', 'p95', 'p99', 'p999'];

/** Samples a percentile needs: 20 for p50, 200 for p95, 1,000 for p99, 10,000 for p99.9. */
export function samplesNeeded(key: PercentileKey): number {
  return Math.round(MIN_SAMPLES_BEYOND / SHARE_BEYOND[key]);
}

/** True when `count` samples (more than none) are too few for the percentile. */
export function isFewSamples(count: number | null | undefined, key: PercentileKey): boolean {
  return typeof count === 'number' && count > 0 && count < samplesNeeded(key);
}

/** The percentiles of a histogram of `count` samples that rest on too few of them. */
export function fewSampleKeys(count: number | null | undefined): PercentileKey[] {
  return PERCENTILE_KEYS.filter((k) => isFewSamples(count, k));
}
