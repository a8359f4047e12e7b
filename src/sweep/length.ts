/**
 * How long a search step runs, as a multiple of load.steps.0's length (its `scale`): a step
 * whose judged percentile rested on fewer than sweep.min_samples samples, and whose verdict
 * those missing samples could change (sweep/settled), is run again longer; a step after a
 * lengthened one runs as long as the samples it is expected to get need — no longer than the
 * step before it, never shorter than load.steps.0. Pure.
 */
import type { Sweep } from '../profile/schema.js';
import type { SweepDriver } from '../profile/schema/sweep.js';
import type { SweepHistoryItem } from './history.js';

/**
 * Drivers whose judged samples grow in proportion to the value (first receipts with the send,
 * insert or update rate; joins with the join rate, the ramp's length held). A step's samples at
 * another value of any other driver are taken to be the same.
 */
const SAMPLES_GROW_WITH_VALUE: ReadonlySet<SweepDriver> = new Set([
  'send_rate',
  'insert_rate',
  'update_share',
  'room_send_rate',
  'join_rate',
]);

/** Margin over min_samples a step's length is planned for (samples of a step vary a little). */
const SAMPLES_MARGIN = 1.2;

/** Scale a step short of min_samples is run again at; null when it is not short or cannot grow. */
export function lengthenedScale(
  cfg: Sweep,
  last: SweepHistoryItem,
  maxScale: number,
): number | null {
  if (cfg.values || cfg.min_samples <= 0) return null;
  if (last.verdict !== 'stable' && last.verdict !== 'degraded') return null;
  if (last.samples == null || last.samples >= cfg.min_samples || last.settled) return null;
  const scale = last.scale ?? 1;
  if (last.at_cap || scale >= maxScale) return null;
  const want =
    last.samples > 0 ? (cfg.min_samples / last.samples) * SAMPLES_MARGIN : maxScale / scale;
  return Math.min(maxScale, Number((scale * Math.max(want, 1.5)).toPrecision(3)));
}

/**
 * Judged samples a step of `value` is expected to get at scale 1: the fewest per unit of length
 * (and of value, for drivers whose samples grow with it) any stable step gave; null when no
 * stable step counted any.
 */
export function expectedSamples(
  driver: SweepDriver,
  history: readonly SweepHistoryItem[],
  value: number,
): number | null {
  const grows = SAMPLES_GROW_WITH_VALUE.has(driver);
  let perUnit: number | null = null;
  for (const h of history) {
    if (h.verdict !== 'stable' || h.samples == null || h.samples <= 0 || h.value <= 0) continue;
    const unit = h.samples / (h.scale ?? 1) / (grows ? h.value : 1);
    perUnit = perUnit === null ? unit : Math.min(perUnit, unit);
  }
  return perUnit === null ? null : perUnit * (grows ? value : 1);
}

/**
 * The scale of the next step, at `value`, after the steps so far: 1 until a step was lengthened;
 * then what min_samples needs by expectedSamples, at most the last step's scale (which it keeps
 * when no stable step says what to expect). A step that falls short after all is run again
 * longer (lengthenedScale).
 */
export function carriedScale(
  cfg: Sweep,
  history: readonly SweepHistoryItem[],
  value: number,
): number {
  const last = history[history.length - 1];
  const lastScale = last?.scale ?? 1;
  if (lastScale === 1 || cfg.min_samples <= 0) return lastScale;
  const expected = expectedSamples(cfg.driver, history, value);
  if (expected === null || expected <= 0) return lastScale;
  const need = (cfg.min_samples * SAMPLES_MARGIN) / expected;
  if (need <= 1) return 1;
  return Math.min(lastScale, Number(need.toPrecision(3)));
}
