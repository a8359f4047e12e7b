import { describe, expect, it } from 'vitest';
import {
  createHistogram,
  decodeHistogram,
  emptyPercentiles,
  encodeHistogram,
  meanOf,
  mergeEncoded,
  percentilesOf,
  pickPercentiles,
  recordMs,
} from '../../src/measure/histogram.js';

/** HDR keeps 3 significant digits: a reported value is within 0.1 % above the recorded one. */
const near = (v: number | null, expected: number) => {
  expect(v).not.toBeNull();
  expect(v!).toBeGreaterThanOrEqual(expected - 0.001);
  expect(v!).toBeLessThanOrEqual(expected * 1.001 + 0.001);
};

describe('percentilesOf', () => {
  it('reports milliseconds from microsecond records', () => {
    const h = createHistogram();
    for (let ms = 1; ms <= 1000; ms++) recordMs(h, ms);
    const p = percentilesOf(h);
    expect(p.count).toBe(1000);
    near(p.p50, 500);
    near(p.p95, 950);
    near(p.p99, 990);
    near(p.p999, 999);
    near(p.max, 1000);
    near(p.mean, 500.5);
  });

  it('resolves sub-millisecond latencies', () => {
    const h = createHistogram();
    recordMs(h, 0.25);
    recordMs(h, 0.75);
    const p = percentilesOf(h);
    near(p.p50, 0.25);
    near(p.max, 0.75);
  });

  it('no percentile exceeds the max: one 10 ms latency reads 10 ms throughout', () => {
    const h = createHistogram();
    recordMs(h, 10);
    const p = percentilesOf(h);
    expect([p.p50, p.p95, p.p99, p.p999, p.max]).toEqual([10, 10, 10, 10, 10]);
  });

  it('percentiles are ordered p50 ≤ p95 ≤ p99 ≤ p99.9 ≤ max, locally and after crossing processes', () => {
    const h = createHistogram();
    for (let i = 0; i < 1000; i++) recordMs(h, 1 + ((i * 7919) % 1000) / 7.3);
    recordMs(h, 1234.5);
    for (const x of [h, decodeHistogram(encodeHistogram(h))]) {
      const p = percentilesOf(x);
      const seq = [p.p50!, p.p95!, p.p99!, p.p999!, p.max!];
      expect([...seq].sort((a, b) => a - b)).toEqual(seq);
    }
    expect(percentilesOf(h).max).toBe(1234.5);
  });

  it('an empty or missing histogram gives nulls and count 0', () => {
    const empty = { p50: null, p95: null, p99: null, p999: null, max: null, mean: null, count: 0 };
    expect(percentilesOf(null)).toEqual(empty);
    expect(percentilesOf(createHistogram())).toEqual(empty);
    expect(emptyPercentiles()).toEqual(empty);
  });
});

describe('recordMs clamping', () => {
  it('negative latencies (clock skew) count as 1 µs', () => {
    const h = createHistogram();
    recordMs(h, -5);
    recordMs(h, 0);
    recordMs(h, -Infinity);
    expect(percentilesOf(h)).toMatchObject({ count: 3, max: 0.001, p50: 0.001 });
  });

  it('latencies over an hour count as one hour', () => {
    const h = createHistogram();
    recordMs(h, 5 * 3_600_000);
    recordMs(h, Infinity);
    const p = percentilesOf(h);
    expect(p.count).toBe(2);
    near(p.max, 3_600_000);
  });
});

describe('encode/decode', () => {
  it('round-trips counts and percentiles', () => {
    const h = createHistogram();
    for (let i = 0; i < 500; i++) recordMs(h, ((i * 37) % 250) + 0.5);
    recordMs(h, 1234.5);
    const d = decodeHistogram(encodeHistogram(h));
    const [pd, ph] = [percentilesOf(d), percentilesOf(h)];
    expect(pd.count).toBe(ph.count);
    expect(pd.mean).toBe(ph.mean);
    expect([pd.p50, pd.p95, pd.p99]).toEqual([ph.p50, ph.p95, ph.p99]);
    // The exact max is not encoded: after crossing, max is the top of its HDR bucket.
    near(pd.max, 1234.5);
    // Once encoded, the figures are stable.
    expect(percentilesOf(decodeHistogram(encodeHistogram(d)))).toEqual(pd);
  });

  it('histograms from several processes merge losslessly', () => {
    const a = createHistogram();
    const b = createHistogram();
    const all = createHistogram();
    for (let i = 1; i <= 100; i++) {
      recordMs(i % 2 ? a : b, i);
      recordMs(all, i);
    }
    const merged = mergeEncoded([encodeHistogram(a), null, encodeHistogram(b), undefined]);
    expect(percentilesOf(merged)).toEqual(percentilesOf(decodeHistogram(encodeHistogram(all))));
  });

  it('merging nothing gives an empty histogram', () => {
    expect(mergeEncoded([]).totalCount).toBe(0);
    expect(mergeEncoded([null, '']).totalCount).toBe(0);
  });

  it('a decoded histogram keeps the full range for later records', () => {
    const small = createHistogram();
    recordMs(small, 0.01);
    const d = decodeHistogram(encodeHistogram(small));
    recordMs(d, 3_000_000);
    expect(d.totalCount).toBe(2);
    near(percentilesOf(d).max, 3_000_000);
  });

  it('an empty histogram round-trips to empty', () => {
    expect(percentilesOf(decodeHistogram(encodeHistogram(createHistogram())))).toEqual(
      emptyPercentiles(),
    );
  });
});

describe('the two hdr-histogram-js files used instead of its index', () => {
  it('create, encode and decode exactly as the index does for a 32-bit, non-WebAssembly histogram', async () => {
    const hdr = await import('hdr-histogram-js');
    const ours = createHistogram();
    const theirs = hdr.build({
      lowestDiscernibleValue: 1,
      highestTrackableValue: 3_600_000_000,
      numberOfSignificantValueDigits: 3,
      bitBucketSize: 32,
      useWebAssembly: false,
      autoResize: false,
    });
    expect(ours.constructor).toBe(theirs.constructor);
    expect(ours.autoResize).toBe(false);
    // Deterministic spread from 1 µs to one hour.
    let x = 12345;
    for (let i = 0; i < 5000; i++) {
      x = (x * 1103515245 + 12345) % 2147483648;
      const ms = (x % 1000) ** 3 / 277.8;
      recordMs(ours, ms);
      recordMs(theirs, ms);
    }
    const encoded = encodeHistogram(ours);
    expect(encoded).toBe(hdr.encodeIntoCompressedBase64(theirs));
    const back = decodeHistogram(encoded);
    // decodeHistogram re-homes what it decodes into createHistogram()'s shape: so does this.
    const viaIndex = hdr.build({
      lowestDiscernibleValue: 1,
      highestTrackableValue: 3_600_000_000,
      numberOfSignificantValueDigits: 3,
      bitBucketSize: 32,
      useWebAssembly: false,
      autoResize: false,
    });
    viaIndex.add(hdr.decodeFromCompressedBase64(encoded, 32, false));
    expect(back.totalCount).toBe(5000);
    expect(percentilesOf(back)).toEqual(percentilesOf(viaIndex));
    expect(back.outputPercentileDistribution()).toBe(viaIndex.outputPercentileDistribution());
  });
});

describe('pickPercentiles', () => {
  it('picks p50, p95, p99', () => {
    expect(pickPercentiles({ p50: 1, p95: 2, p99: 3, p999: 4, max: 5, mean: 1, count: 9 })).toEqual(
      { p50: 1, p95: 2, p99: 3 },
    );
  });
});

describe('meanOf', () => {
  it("equals hdr-histogram-js's own mean exactly, from sub-millisecond to an hour", () => {
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (const spreadMs of [0.5, 30, 2_000, 3_600_000]) {
      const h = createHistogram();
      for (let i = 0; i < 5000; i++) recordMs(h, rand() * spreadMs);
      recordMs(h, spreadMs); // the top of the range, once
      expect(meanOf(h)).toBe(h.mean);
    }
  });

  it('is 0 for an empty histogram, as the library says', () => {
    const h = createHistogram();
    expect(meanOf(h)).toBe(0);
    expect(h.mean).toBe(0);
  });

  it('counts a decoded (merged) histogram the same as the one recorded', () => {
    const h = createHistogram();
    for (let ms = 1; ms <= 300; ms++) recordMs(h, ms * 1.7);
    const d = decodeHistogram(encodeHistogram(h));
    expect(meanOf(d)).toBe(h.mean);
  });
});
