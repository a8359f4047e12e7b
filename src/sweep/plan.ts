/**
 * The next step of a sweep, as a pure function of the steps measured so far: geometric growth
 * until K consecutive broken steps (or sweep.max, or a generator that cannot go further), then
 * bisection between the last stable and the first broken value (model/knee.ts) down to
 * sweep.resolution. A search whose start is already degraded or broken steps down by
 * sweep.factor (at most MAX_STEP_DOWNS times) until a step is stable, then bisects up from it.
 * A resumed sweep hands the same history in and gets the same answer.
 *
 * Two kinds of step are not evidence of where the knee is, and are run again instead:
 * - a step measured while the server was still recovering from the one before (the recovery
 *   probe's wait ran out) that was not stable: its failure may be the backlog's;
 * - a judged step whose percentile rests on fewer than sweep.min_samples samples: it is run
 *   again longer (the `lengthen` phase), and the longer run stands for that value.
 */
import { findKnee, nextBisectionValue, type Knee } from '../model/knee.js';
import { isJudged } from '../model/verdict.js';
import type { Sweep } from '../profile/schema.js';
import type { StepResult, Verdict } from '../result/result.js';
import { fmtDriver, roundDriver, type SweepPhase } from './spec.js';

export type { SweepPhase } from './spec.js';

export interface SweepHistoryItem {
  value: number;
  verdict: Verdict;
  phase: SweepPhase;
  step: number;
  /** The step ran after the recovery probe's wait ran out, the server not back to its baseline. */
  recovering?: boolean;
  /** Samples of the percentile the step is judged on (null: none judged, e.g. acks only). */
  samples?: number | null;
  /** The step's length (duration, or joins for join rate) as a multiple of load.steps.0's. */
  scale?: number;
  /** The step could not be lengthened further (its scale is at the sweep's cap). */
  at_cap?: boolean;
  /** The server refused every connection of the step: its rejection, quoted ("“…” ×51"). */
  refused?: string | null;
}

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
 * Steps that stand for their value: not superseded by a longer run, not a failure while recovering.
 */
export function evidenceOf(history: readonly SweepHistoryItem[]): SweepHistoryItem[] {
  return history.filter((h, i) => {
    if (h.recovering && h.verdict !== 'stable') return false;
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

/** Scale a step short of min_samples is run again at; null when it is not short or cannot grow. */
export function lengthenedScale(
  cfg: Sweep,
  last: SweepHistoryItem,
  maxScale: number,
): number | null {
  if (cfg.values || cfg.min_samples <= 0) return null;
  if (last.verdict !== 'stable' && last.verdict !== 'degraded') return null;
  if (last.samples == null || last.samples >= cfg.min_samples) return null;
  const scale = last.scale ?? 1;
  if (last.at_cap || scale >= maxScale) return null;
  const want = last.samples > 0 ? (cfg.min_samples / last.samples) * 1.2 : maxScale / scale;
  return Math.min(maxScale, Number((scale * Math.max(want, 1.5)).toPrecision(3)));
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
  const scale = history.length ? (history[history.length - 1].scale ?? 1) : 1;
  // Once a step was lengthened, the steps after it keep its length.
  const at = (x: { value: number; phase: SweepPhase }): SweepDecision =>
    scale !== 1 ? { ...x, scale } : x;
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
  // A failure measured while the server still carried the last step's backlog: once more.
  if (last.recovering && last.verdict !== 'stable' && last.phase !== 'retry')
    return at({ value: last.value, phase: 'retry' });
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
  const brokenRun = trailing(evidence, (h) => h.verdict === 'broken');
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
  const knee = sweepKnee(history);
  // Once a search stepped down to a stable value below a broken one, the knee lies between.
  const growthOver =
    inBisection ||
    generatorLimit !== null ||
    highest >= max ||
    brokenRun >= cfg.stop_after_broken ||
    (steppedDown && knee.bracket !== null);
  if (!growthOver) {
    const next = roundDriver(d, Math.min(highest * cfg.factor, max));
    if (next > highest) return { value: next, phase: 'grow' };
  }

  const found = (k: Knee) =>
    k.last_stable && k.first_broken
      ? `knee between ${d} ${f(k.last_stable.value)} (stable, step ${k.last_stable.step}) and ${f(k.first_broken.value)} (broken, step ${k.first_broken.step})`
      : '';
  if (generatorLimit !== null && inBisection) {
    return {
      stop: `generator-bound at ${d} ${f(generatorLimit)} during bisection${found(knee) ? `; ${found(knee)}` : ''}`,
      kind: 'generator-bound',
    };
  }
  if (knee.bracket) return bisect(cfg, knee, judged, tried, found(knee));
  if (generatorLimit !== null) {
    return {
      stop: `generator-bound at ${d} ${f(generatorLimit)} after ${cfg.generator_bound_retries + 1} tries, with no broken step: the generator, not the server, limits this sweep (use --workers or another machine)`,
      kind: 'generator-bound',
    };
  }
  if (!knee.last_stable)
    return { stop: `no stable step at any value up to ${f(highest)}`, kind: 'no-stable-step' };
  return {
    stop: `reached sweep.max (${d} ${f(max)}) with no broken step: no knee at or below ${f(max)}`,
    kind: 'range-end',
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

/**
 * Between the last stable and the first broken value; once a step between them ran degraded,
 * between the last stable and the first degraded one (the latency knee, which the row reads).
 */
function bisect(
  cfg: Sweep,
  knee: Knee,
  judged: readonly SweepHistoryItem[],
  tried: ReadonlySet<number>,
  found: string,
): SweepDecision {
  const d = cfg.driver;
  const f = (v: number) => fmtDriver(d, v);
  const [lo, hi] = knee.bracket!;
  const degradedAbove = judged
    .filter((h) => h.verdict === 'degraded' && h.value > lo && h.value < hi)
    .map((h) => h.value);
  // The row's value is the highest stable step below the first one that was not stable: once
  // a step between them ran degraded, only [last stable, first degraded] can move it, so that
  // is the bracket narrowed (a value above the first degraded one says nothing of the row).
  const brackets: Array<[number, number]> = degradedAbove.length
    ? [[lo, Math.min(...degradedAbove)]]
    : [knee.bracket!];
  let narrowEnough = true;
  for (const b of brackets) {
    const mid = nextBisectionValue({ ...knee, bracket: b }, cfg.resolution);
    if (mid === null) continue;
    narrowEnough = false;
    const v = roundDriver(d, mid);
    if (v > b[0] && v < b[1] && !tried.has(v)) return { value: v, phase: 'bisect' };
  }
  const latency = degradedAbove.length
    ? `; latency first: degraded from ${f(Math.min(...degradedAbove))}`
    : '';
  return {
    stop: narrowEnough
      ? `${found}${latency}, within sweep.resolution ${cfg.resolution * 100} %`
      : `${found}${latency}; the bracket cannot be narrowed further (its midpoints ran already)`,
    kind: 'knee',
  };
}
