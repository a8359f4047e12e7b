/**
 * The knee along one driver: steps ordered by the load they asked for, the
 * last stable step before the first broken one, and the bracket a sweep bisects. Seed 002
 * shows the failure order "latency first, then delivery" (docs/METHOD.md §1.2, §7), so the first
 * degraded step is reported too; `safe` is the last stable step before anything went wrong, the
 * highest value a capacity row may recommend.
 *
 * Generator-bound steps are skipped: they say nothing about the server. An incomplete
 * (cut-short) stable step is skipped too — it never stands for capacity — while an incomplete
 * failed step still counts as a failure. Steps without a value for the driver are skipped, and
 * so are a search's steps that are no evidence (StepSearchMark), and a step in which the server
 * went away (killed, crashed): its death is no limit of the load, so the knee below it stands as a
 * lower bound and the step is named in `server_gone`.
 */
import type { StepResult, Verdict } from '../result/result.js';
import { STEP_METRICS, type StepMetricName } from './metrics.js';
import { isJudged } from './verdict.js';
import { serverWentAwayIn } from './verdict-broken.js';

export interface KneePoint {
  step: number;
  value: number;
  verdict: Verdict;
}

export interface Knee {
  driver: StepMetricName;
  /** Highest stable step below the first broken one (the highest stable if none broke). */
  last_stable: KneePoint | null;
  first_degraded: KneePoint | null;
  first_broken: KneePoint | null;
  /** Highest stable step below the first degraded or broken one. */
  safe: KneePoint | null;
  /** The first step above `safe` that was not stable: what stopped the driver. */
  first_unsafe: KneePoint | null;
  /** [last stable, first broken] driver values, for bisection; null until both exist. */
  bracket: [number, number] | null;
  /** Generator-bound steps above `safe`: the server may carry more than was shown. */
  generator_bound_above: KneePoint[];
  /** Stable steps at or above the first non-stable one (noise or recovery), listed, not used. */
  stable_above_knee: KneePoint[];
  /** Failed steps left out because another driver explains them (KneeOptions). */
  attributed_elsewhere: KneePoint[];
  /** The first step (by index) in which the server went away: left out, never a limit. */
  server_gone: KneePoint | null;
}

/** Steps with a value for the driver, ordered by it (ties by step index). */
export function orderAlong(steps: readonly StepResult[], driver: StepMetricName): KneePoint[] {
  const pts: KneePoint[] = [];
  for (const s of steps) {
    const v = STEP_METRICS[driver](s);
    if (v !== null) pts.push({ step: s.index, value: v, verdict: s.verdict });
  }
  return pts.sort((a, b) => a.value - b.value || a.step - b.step);
}

export interface KneeOptions {
  /**
   * Steps whose failure another driver explains (capacity.ts decides): left out of this
   * driver's knee and listed in `attributed_elsewhere`. A private-broadcast step with
   * 10,000 sends/s but only 8,100 deliveries/s broke on sends, not on deliveries
   * (docs/METHOD.md §2.1).
   */
  attributedElsewhere?: ReadonlySet<number>;
}

/**
 * Conservative on repeats: a value that was stable on one step and failed on another is
 * not safe, and a stable step above the first failure is listed, not used.
 */
export function findKnee(
  steps: readonly StepResult[],
  driver: StepMetricName,
  opts: KneeOptions = {},
): Knee {
  const skip = opts.attributedElsewhere ?? new Set<number>();
  // An incomplete (cut-short) step covers only part of its window: a stable one is never
  // cited as capacity; a failed one (the server closed every socket) still marks a limit.
  const incomplete = new Set(steps.filter((s) => s.complete === false).map((s) => s.index));
  // A search's step is no evidence when a longer run of its value replaced it, nor when it was
  // measured while the server was still recovering from the step before (inconclusive).
  const notEvidence = new Set(
    steps
      .filter(
        (s) => s.search && (s.search.superseded_by !== undefined || s.search.recovered === false),
      )
      .map((s) => s.index),
  );
  // A server that went away (killed, crashed) reached no limit of its load.
  const gone = new Set(steps.filter(serverWentAwayIn).map((s) => s.index));
  const along = orderAlong(steps, driver);
  const all = along.filter(
    (p) =>
      !notEvidence.has(p.step) &&
      !gone.has(p.step) &&
      !(incomplete.has(p.step) && p.verdict === 'stable'),
  );
  const judged = all.filter((p) => isJudged(p.verdict) && !skip.has(p.step));
  const firstUnsafe = judged.find((p) => p.verdict !== 'stable') ?? null;
  const firstBroken = judged.find((p) => p.verdict === 'broken') ?? null;
  const firstDegraded = judged.find((p) => p.verdict === 'degraded') ?? null;
  // Strictly below: a value that was both stable and failed in one run is not safe.
  const lastStable = lastStableBelow(judged, firstBroken?.value ?? Infinity);
  const safe = lastStableBelow(judged, firstUnsafe?.value ?? Infinity);
  const generatorAbove = all.filter(
    (p) => p.verdict === 'generator-bound' && p.value > (safe?.value ?? -Infinity),
  );
  const stableAbove = firstUnsafe
    ? judged.filter((p) => p.verdict === 'stable' && p.value >= firstUnsafe.value)
    : [];

  return {
    driver,
    last_stable: lastStable,
    first_degraded: firstDegraded,
    first_broken: firstBroken,
    safe,
    first_unsafe: firstUnsafe,
    bracket: lastStable && firstBroken ? [lastStable.value, firstBroken.value] : null,
    generator_bound_above: generatorAbove,
    stable_above_knee: stableAbove,
    attributed_elsewhere: all.filter((p) => skip.has(p.step)),
    server_gone: along.filter((p) => gone.has(p.step)).sort((a, b) => a.step - b.step)[0] ?? null,
  };
}

function lastStableBelow(points: KneePoint[], limit: number): KneePoint | null {
  let best: KneePoint | null = null;
  for (const p of points) if (p.verdict === 'stable' && p.value < limit) best = p;
  return best;
}

/**
 * Next driver value a bisecting sweep should try, or null when the bracket is already
 * narrower than `resolution` (relative, default 5 %) — the knee is found.
 */
export function nextBisectionValue(knee: Knee, resolution = 0.05): number | null {
  if (!knee.bracket) return null;
  const [lo, hi] = knee.bracket;
  if (hi - lo <= Math.abs(hi) * resolution) return null;
  return (lo + hi) / 2;
}
