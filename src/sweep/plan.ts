/**
 * The next step of a sweep, as a pure function of the steps measured so far: geometric growth
 * until the first step that is not stable (degraded or broken: a search never doubles into an
 * overloaded server), or sweep.max, or a generator that cannot go further; then bisection
 * between the highest stable value and that first step that was not stable (model/knee.ts)
 * down to sweep.resolution. A search whose start is already degraded or broken steps down by
 * sweep.factor (at most MAX_STEP_DOWNS times) until a step is stable, then bisects up from it.
 * A resumed sweep hands the same history in and gets the same answer.
 *
 * Two kinds of step are not evidence of where the knee is, and are run again instead:
 * - a step measured before the recovery probe confirmed that the server was back to its
 *   baseline (recovery/probe: its wait ran out), whatever its verdict: it is
 *   inconclusive, run again at most sweep.recovery.reruns times, and when the server never
 *   recovers the search stops there (`not-recovered`, the rows a lower bound naming it);
 * - a judged step whose percentile rests on fewer than sweep.min_samples samples: it is run
 *   again longer (the `lengthen` phase), and the longer run stands for that value.
 */
import { findKnee, type Knee } from '../model/knee.js';
import { kneeWords, searchBracket } from './bracket.js';
import { isJudged } from '../model/verdict.js';
import type { Sweep } from '../profile/schema.js';
import type { StepResult } from '../result/result.js';
import { fmtDriver, roundDriver, type SweepPhase } from './spec.js';
import { carriedScale, lengthenedScale } from './length.js';
import type { SweepHistoryItem } from './history.js';

/**
 * Why a sweep stopped, as the kinds a capacity row reads: the search found the knee, ran to
 * the end of its range, spent its budget, met a generator that could not go further, or
 * could not start (the first value already broken, no stable step).
 */
export type SweepStopKind =
  | 'knee'
  | 'range-end'
  | 'budget-spent'
  | 'generator-bound'
  | 'max-steps'
  | 'first-broken'
  | 'no-stable-step'
  | 'values-done'
  | 'broken-run'
  | 'not-recovered'
  | 'server-rejection';

export type SweepDecision =
  { value: number; phase: SweepPhase; scale?: number } | { stop: string; kind: SweepStopKind };

function trailing<T>(xs: readonly T[], pred: (x: T) => boolean): number {
  let n = 0;
  for (let i = xs.length - 1; i >= 0 && pred(xs[i]); i--) n++;
  return n;
}

/**
 * Steps that stand for their value: not superseded by a longer run, not measured before the
 * server was back to its baseline.
 */
export function evidenceOf(history: readonly SweepHistoryItem[]): SweepHistoryItem[] {
  return history.filter((h, i) => {
    if (h.recovering) return false;
    if (contradictedBy(history, h) !== null) return false;
    const next = history[i + 1];
    return !(next && next.phase === 'lengthen' && next.value === h.value);
  });
}

/**
 * A step that was not stable while a higher value was, run again (phase `confirm`) and stable
 * that time: the later run, which stands for the value; null when there is none.
 */
export function contradictedBy(
  history: readonly SweepHistoryItem[],
  h: SweepHistoryItem,
): SweepHistoryItem | null {
  if (h.verdict !== 'degraded' && h.verdict !== 'broken') return null;
  return (
    history.find(
      (c) =>
        c.step > h.step && c.phase === 'confirm' && c.value === h.value && c.verdict === 'stable',
    ) ?? null
  );
}

/**
 * A step that failed (degraded or broken) below a value that was stable contradicts it: the
 * first such failure not yet run again is run once more (`confirm`). Stable then, the failure
 * was the moment's (a loaded machine), not the server's limit, and the later run stands for the
 * value; failed again, both stand.
 */
function confirmStep(
  history: readonly SweepHistoryItem[],
): { value: number; phase: SweepPhase } | null {
  const evidence = evidenceOf(history);
  const stable = evidence.filter((h) => h.verdict === 'stable').map((h) => h.value);
  if (stable.length === 0) return null;
  const top = Math.max(...stable);
  const doubt = evidence.find(
    (h) =>
      (h.verdict === 'degraded' || h.verdict === 'broken') &&
      !h.refused &&
      h.value < top &&
      !history.some((c) => c.phase === 'confirm' && c.value === h.value),
  );
  return doubt ? { value: doubt.value, phase: 'confirm' } : null;
}

/**
 * The knee along the sweep's driver, with knee.ts's rules (generator-bound steps skipped, a
 * value both stable and broken is not safe), over the steps that stand as evidence. findKnee
 * reads a driver through STEP_METRICS; the value each step ran at is put where
 * `connections_target` reads it, so every driver gets the same rules as the capacity table.
 */
export function sweepKnee(history: readonly SweepHistoryItem[]): Knee {
  const probes = evidenceOf(history).map(
    (h) =>
      ({
        index: h.step,
        verdict: h.verdict,
        params: { connections: h.value },
      }) as unknown as StepResult,
  );
  return findKnee(probes, 'connections_target');
}

/**
 * The next step of a sweep, or why it stops. Pure: the same history always gives the same
 * answer. `maxScale`: how far a step may be lengthened for min_samples (sweep/spec).
 */
export function planNextSweepStep(
  cfg: Sweep,
  history: readonly SweepHistoryItem[],
  startValue: number,
  maxScale = 1,
): SweepDecision {
  const d = cfg.driver;
  if (history.length >= cfg.max_steps)
    return { stop: `sweep.max_steps (${cfg.max_steps}) reached`, kind: 'max-steps' };
  // After a lengthened step, a step runs as long as the samples it is expected to get need.
  const at = (x: { value: number; phase: SweepPhase }): SweepDecision => {
    const scale = carriedScale(cfg, history, x.value);
    return scale !== 1 ? { ...x, scale } : x;
  };
  const brokenRun = trailing(evidenceOf(history), (h) => h.verdict === 'broken');

  if (cfg.values) {
    if (brokenRun >= cfg.stop_after_broken)
      return {
        stop: `${brokenRun} consecutive broken steps (sweep.stop_after_broken ${cfg.stop_after_broken})`,
        kind: 'broken-run',
      };
    if (history.length >= cfg.values.length)
      return { stop: `all ${cfg.values.length} values run`, kind: 'values-done' };
    return { value: cfg.values[history.length], phase: 'explicit' };
  }

  const max = cfg.max!;
  if (history.length === 0)
    return { value: roundDriver(d, Math.min(startValue, max)), phase: 'grow' };
  const last = history[history.length - 1];
  const longer = lengthenedScale(cfg, last, maxScale);
  if (longer !== null) return { value: last.value, phase: 'lengthen', scale: longer };
  // The server refused every join of the last step: nothing at or past it can be measured.
  if (last.refused) return rejectionStop(cfg, history, last);
  // Measured while the server still carried an earlier step's backlog: inconclusive, run again
  // (sweep.recovery.reruns times at most), else the search ends there.
  if (last.recovering) {
    const runs = trailing(history, (h) => h.value === last.value && h.recovering === true);
    if (runs <= cfg.recovery.reruns) return at({ value: last.value, phase: 'retry' });
    return notRecoveredStop(cfg, history, runs);
  }
  const confirm = last.verdict === 'generator-bound' ? null : confirmStep(history);
  if (confirm) return at(confirm);
  let generatorLimit: number | null = null;
  if (last.verdict === 'generator-bound') {
    const runs = trailing(
      history,
      (h) => h.value === last.value && h.verdict === 'generator-bound',
    );
    if (runs <= cfg.generator_bound_retries) return at({ value: last.value, phase: 'retry' });
    generatorLimit = last.value;
  }
  const next = searchStep(cfg, history, generatorLimit);
  return 'stop' in next ? next : at(next);
}

function searchStep(
  cfg: Sweep,
  history: readonly SweepHistoryItem[],
  generatorLimit: number | null,
): SweepDecision {
  const d = cfg.driver;
  const f = (v: number) => fmtDriver(d, v);
  const max = cfg.max!;
  const evidence = evidenceOf(history);
  // Every value run counts as tried: one that failed twice while the server was recovering is
  // not run a third time (nor the knee: the bracket stays as wide as the evidence makes it).
  const tried = new Set(history.map((h) => h.value));
  const inBisection = history.some((h) => h.phase === 'bisect');
  const highest = Math.max(...history.map((h) => h.value));
  const judged = evidence.filter((h) => isJudged(h.verdict));
  const down = generatorLimit === null ? stepDown(cfg, history, judged) : null;
  if (down) return down;
  if (
    judged.length > 0 &&
    judged.every((h) => h.verdict === 'broken') &&
    evidence[0]?.verdict === 'broken'
  ) {
    const lowest = Math.min(...judged.map((h) => h.value));
    const downs = history.filter((h) => h.phase === 'step-down').length;
    return {
      stop: `the first value, ${d} ${f(evidence[0].value)}, was already broken${downs > 0 ? `, and so was every value down to ${f(lowest)} (${downs} step${downs === 1 ? '' : 's'} down)` : ''}: lower sweep.start`,
      kind: 'first-broken',
    };
  }

  const steppedDown = history.some((h) => h.phase === 'step-down');
  if (steppedDown && judged.length > 0 && !judged.some((h) => h.verdict === 'stable')) {
    const lowest = Math.min(...judged.map((h) => h.value));
    return {
      stop: `no stable step: ${d} ${f(evidence[0].value)} and every value down to ${f(lowest)} failed (${MAX_STEP_DOWNS} steps down at most): lower sweep.start`,
      kind: 'no-stable-step',
    };
  }
  const bracket = searchBracket(judged);
  // Growth ends at the first step that was not stable above a stable one (degraded included):
  // the knee lies between the highest stable value below it and it, and a value above it would
  // only deepen the server's backlog.
  const stableValues = judged.filter((h) => h.verdict === 'stable').map((h) => h.value);
  const topStable = Math.max(-Infinity, ...stableValues);
  const failedAtTop = judged.some((h) => h.verdict !== 'stable' && h.value >= topStable);
  const growthOver =
    inBisection || generatorLimit !== null || highest >= max || bracket !== null || failedAtTop;
  if (!growthOver) {
    const next = roundDriver(d, Math.min(highest * cfg.factor, max));
    if (next > highest) return { value: next, phase: 'grow' };
  }

  const words = kneeWords(d, judged);
  if (generatorLimit !== null && inBisection) {
    return {
      stop: `generator-bound at ${d} ${f(generatorLimit)} during bisection${words ? `; ${words}` : ''}`,
      kind: 'generator-bound',
    };
  }
  if (bracket) return bisect(cfg, bracket, words, tried);
  if (generatorLimit !== null) {
    return {
      stop: `generator-bound at ${d} ${f(generatorLimit)} after ${cfg.generator_bound_retries + 1} tries, with no broken step: the generator, not the server, limits this sweep (use --workers or another machine)`,
      kind: 'generator-bound',
    };
  }
  if (!judged.some((h) => h.verdict === 'stable'))
    return { stop: `no stable step at any value up to ${f(highest)}`, kind: 'no-stable-step' };
  return {
    stop: `reached sweep.max (${d} ${f(max)}) with no broken step: no knee at or below ${f(max)}`,
    kind: 'range-end',
  };
}

/**
 * The server was not back to its baseline before `runs` runs in a row of the last value: no
 * step can measure it, so the search ends; its rows keep what the steps before showed, as a
 * lower bound naming the cause (sweep/steps records which step left the backlog).
 */
function notRecoveredStop(
  cfg: Sweep,
  history: readonly SweepHistoryItem[],
  runs: number,
): SweepDecision {
  const d = cfg.driver;
  const last = history[history.length - 1];
  const k = kneeWords(
    d,
    evidenceOf(history).filter((h) => isJudged(h.verdict)),
  );
  return {
    stop: `the server did not recover before ${runs} runs of ${d} ${fmtDriver(d, last.value)} (each after sweep.recovery.max_wait, sweep.recovery.reruns ${cfg.recovery.reruns}): those steps are inconclusive${k ? `; ${k} (not narrowed to sweep.resolution)` : ''}`,
    kind: 'not-recovered',
  };
}

/** The search ends on a step whose every connection the server refused, the rejection quoted. */
function rejectionStop(
  cfg: Sweep,
  history: readonly SweepHistoryItem[],
  last: SweepHistoryItem,
): SweepDecision {
  const f = (v: number) => fmtDriver(cfg.driver, v);
  const safe = sweepKnee(history).safe;
  const at = safe ? `; last stable ${cfg.driver} ${f(safe.value)} (step ${safe.step})` : '';
  return {
    stop: `server rejection at ${cfg.driver} ${f(last.value)} (step ${last.step}): every connection refused, ${last.refused}${at}`,
    kind: 'server-rejection',
  };
}

/** How many times a search whose start was not stable goes down by sweep.factor for one that is. */
export const MAX_STEP_DOWNS = 3;

/**
 * A search whose every judged step so far failed (degraded or broken) steps down from its lowest
 * value by sweep.factor, at most MAX_STEP_DOWNS times, to find a stable start; null when a step
 * was stable, the steps down are spent, or the driver cannot go lower.
 */
function stepDown(
  cfg: Sweep,
  history: readonly SweepHistoryItem[],
  judged: readonly SweepHistoryItem[],
): SweepDecision | null {
  if (judged.length === 0 || judged.some((h) => h.verdict === 'stable')) return null;
  if (history.filter((h) => h.phase === 'step-down').length >= MAX_STEP_DOWNS) return null;
  const lowest = Math.min(...history.map((h) => h.value));
  if (!judged.some((h) => h.value === lowest)) return null;
  const next = roundDriver(cfg.driver, lowest / cfg.factor);
  if (!(next > 0) || next >= lowest) return null;
  return { value: next, phase: 'step-down' };
}

/** Between the highest stable value and the first one above it that was not stable. */
function bisect(
  cfg: Sweep,
  b: { lo: SweepHistoryItem; hi: SweepHistoryItem },
  words: string,
  tried: ReadonlySet<number>,
): SweepDecision {
  const [lo, hi] = [b.lo.value, b.hi.value];
  const mid = hi - lo <= Math.abs(hi) * cfg.resolution ? null : (lo + hi) / 2;
  const v = mid === null ? null : roundDriver(cfg.driver, mid);
  if (v !== null && v > lo && v < hi && !tried.has(v)) return { value: v, phase: 'bisect' };
  return {
    stop:
      mid === null
        ? `${words}, within sweep.resolution ${cfg.resolution * 100} %`
        : `${words}; the bracket cannot be narrowed further (its midpoints ran already)`,
    kind: 'knee',
  };
}
