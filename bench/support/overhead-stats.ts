/**
 * The latency-overhead bench's statistics: nearest-rank percentiles of exact samples, and the
 * bench's own noise measure — a paired block bootstrap of the difference rtcap − bare at each
 * percentile. The two receivers run at the same time, so a moment when the machine stalled
 * hits both: the samples are grouped in blocks (one second of one round, both receivers'
 * messages written in that second), blocks are drawn with replacement, and each draw's
 * percentile difference is taken; the 2.5th–97.5th percentile of those differences is the
 * interval a difference has to leave before it says more than this machine's noise.
 * Pure: no I/O.
 */

export const KEYS = ['p50', 'p95', 'p99'] as const;
export type Key = (typeof KEYS)[number];
export type Ranked = Record<Key, number> & { count: number };

/** Nearest-rank percentile of ascending `sorted` (NaN when empty). */
function rankOf(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
}

const PCT: Record<Key, number> = { p50: 50, p95: 95, p99: 99 };

/** Nearest-rank p50/p95/p99 of exact samples (negative ones kept: no clamping). */
export function nearestRank(samples: number[]): Ranked {
  const s = Float64Array.from(samples).sort();
  return { p50: rankOf(s, 50), p95: rankOf(s, 95), p99: rankOf(s, 99), count: s.length };
}

/** One block's samples: both receivers' overheads of the messages written in it. */
export interface Block {
  rtcap: number[];
  bare: number[];
}

/** A percentile's difference rtcap − bare, with its bootstrap interval. */
export interface Difference {
  diff: number;
  low: number;
  high: number;
}

/** A small deterministic generator (mulberry32), so a run's interval can be reproduced. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gather(blocks: Block[], pick: number[], side: 'rtcap' | 'bare'): Float64Array {
  let n = 0;
  for (const i of pick) n += blocks[i][side].length;
  const out = new Float64Array(n);
  let o = 0;
  for (const i of pick) for (const v of blocks[i][side]) out[o++] = v;
  return out.sort();
}

/**
 * rtcap − bare at p50/p95/p99 over all blocks, and the 95 % interval of that difference over
 * `draws` paired block resamples.
 */
export function pairedDifference(blocks: Block[], draws = 1000, seed = 1): Record<Key, Difference> {
  const all = blocks.map((_, i) => i);
  const rt = gather(blocks, all, 'rtcap');
  const bare = gather(blocks, all, 'bare');
  const byKey = {} as Record<Key, number[]>;
  for (const k of KEYS) byKey[k] = [];
  const rand = random(seed);
  for (let d = 0; d < draws; d++) {
    const pick = all.map(() => Math.floor(rand() * all.length));
    const r = gather(blocks, pick, 'rtcap');
    const b = gather(blocks, pick, 'bare');
    for (const k of KEYS) byKey[k].push(rankOf(r, PCT[k]) - rankOf(b, PCT[k]));
  }
  const out = {} as Record<Key, Difference>;
  for (const k of KEYS) {
    const s = Float64Array.from(byKey[k].filter((x) => !Number.isNaN(x))).sort();
    out[k] = {
      diff: rankOf(rt, PCT[k]) - rankOf(bare, PCT[k]),
      low: rankOf(s, 2.5),
      high: rankOf(s, 97.5),
    };
  }
  return out;
}

/**
 * How a difference reads: `≤` when rtcap's percentile is at or below the bare receiver's,
 * `within noise` when above it but the interval reaches 0, `>` when the whole interval is above.
 */
export function verdict(d: Difference): '≤' | 'within noise' | '>' {
  if (d.diff <= 0) return '≤';
  return d.low <= 0 ? 'within noise' : '>';
}
