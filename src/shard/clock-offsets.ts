/**
 * How far each segment's clock is from segment 0's, measured from the receipts themselves: the
 * server writes one message to every member at about the same instant, so the first receipt of
 * the same message on two machines differs by their clock offset plus a few milliseconds of
 * fan-out and network. Per segment, the median of that difference over every message both
 * received is its offset (positive: its clock is ahead of segment 0's); the interquartile
 * range says how sharp the estimate is.
 *
 * Latency does not depend on it (it uses same-machine receipts only); what does is the shared
 * `--start-at` schedule, which each segment reads on its own clock: an offset beyond the
 * schedule's margin means a segment's joins or sends ran off the others'.
 */
import type { StepCollected } from '../generator/ipc.js';
import type { SegmentClockOffset } from '../result/result.js';
import { r1 } from '../util/round.js';

type Firsts = Map<number, Float64Array>;

/** Earliest receipt per (stream, seq) over one segment's processes; NaN: not received. */
function firstReceipts(collected: readonly StepCollected[]): Firsts {
  const out: Firsts = new Map();
  for (const c of collected)
    for (const s of c.receipts.streams) {
      let f = out.get(s.stream);
      if (!f || f.length < s.first.length) {
        const grown = new Float64Array(s.first.length).fill(NaN);
        if (f) grown.set(f);
        out.set(s.stream, (f = grown));
      }
      for (let seq = 0; seq < s.first.length; seq++) {
        if (s.count[seq] === 0) continue;
        if (!(f[seq] <= s.first[seq])) f[seq] = s.first[seq];
      }
    }
  return out;
}

function quantile(sorted: readonly number[], q: number): number {
  const i = (sorted.length - 1) * q;
  const lo = Math.floor(i);
  return sorted[lo] + (sorted[Math.min(lo + 1, sorted.length - 1)] - sorted[lo]) * (i - lo);
}

/**
 * Offsets of segments 1 … N−1 against segment 0 over the steps' merged collections (each
 * carrying its segment); a segment sharing no received message with segment 0 is left out.
 */
export function clockOffsets(
  steps: ReadonlyArray<{ collected: readonly StepCollected[] }>,
  segments: number,
): SegmentClockOffset[] {
  const diffs: number[][] = Array.from({ length: segments }, () => []);
  for (const step of steps) {
    const bySegment = Array.from({ length: segments }, (_, k) =>
      firstReceipts(step.collected.filter((c) => (c.segment ?? 0) === k)),
    );
    const ref = bySegment[0];
    for (let k = 1; k < segments; k++)
      for (const [stream, f] of bySegment[k]) {
        const f0 = ref.get(stream);
        if (!f0) continue;
        const n = Math.min(f.length, f0.length);
        for (let seq = 0; seq < n; seq++)
          if (!Number.isNaN(f[seq]) && !Number.isNaN(f0[seq])) diffs[k].push(f[seq] - f0[seq]);
      }
  }
  const out: SegmentClockOffset[] = [];
  for (let k = 1; k < segments; k++) {
    const d = diffs[k].sort((a, b) => a - b);
    if (d.length === 0) continue;
    out.push({
      segment: k,
      offset_ms: r1(quantile(d, 0.5)),
      iqr_ms: r1(quantile(d, 0.75) - quantile(d, 0.25)),
      messages: d.length,
    });
  }
  return out;
}
