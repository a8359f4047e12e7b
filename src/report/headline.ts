/**
 * The one sentence that answers the question a run asks: how many deliveries/s and
 * connections the server carried within the SLO, and what limited it — or, when nothing
 * did, that the figure is a lower bound ("≥ …"). It cites only a measured, complete, stable
 * step (the knee's `safe` step), never a fit's extrapolation, a generator-bound step or an
 * incomplete one.
 */
import { DEFAULT_SAFE_LINES, type SafeLines } from '../model/capacity-row.js';
import { isLowerBound, limitRemedy, limitWords } from '../model/limit.js';
import { limitContextOf, limitOfStep } from '../model/step-limit.js';
import {
  cutShortWords,
  fmtInt,
  fmtMs,
  fmtRatioPct,
  INCOMPLETE_LABEL,
  isIncompleteReason,
} from '../model/format.js';
import { findKnee, type Knee } from '../model/knee.js';
import { SERVER_WENT_AWAY, serverWentAwayIn } from '../model/verdict-broken.js';
import { STEP_METRICS, type StepMetricName } from '../model/metrics.js';
import type { RunResult, StepResult } from '../result/result.js';
import { STOPPED_EARLY } from '../result/cut-short.js';

/**
 * The load the steps asked for, in the order a ramp raises it: deliveries/s where messages flow.
 * A step a search ended with its ramp (docs/SWEEPS.md "Steps stopped early") sent nothing, so
 * its deliveries/s say nothing of what it asked for: such a run is ordered by its connections.
 */
export function driverOf(steps: readonly StepResult[]): StepMetricName {
  const stoppedEarly = steps.some((s) => s.cut_short?.by.startsWith(STOPPED_EARLY));
  return !stoppedEarly && steps.some((s) => (STEP_METRICS.expected_per_s(s) ?? 0) > 0)
    ? 'expected_per_s'
    : 'connections_target';
}

function sloText(r: RunResult): string {
  const parts = [`first-receipt p95 ≤ ${fmtMs(r.slo.p95_ms)}`];
  if (r.slo.p99_ms !== undefined) parts.push(`p99 ≤ ${fmtMs(r.slo.p99_ms)}`);
  parts.push(`${fmtRatioPct(r.slo.delivery_rate)} delivered`);
  return parts.join(', ');
}

function carried(s: StepResult, bound: '' | '≥ '): string {
  const deliveries = s.rates?.delivered_per_s;
  const conns = fmtInt(s.connections?.joined);
  return deliveries != null && deliveries > 0
    ? `${bound}${fmtInt(deliveries)} deliveries/s to ${bound}${conns} connections`
    : `${bound}${conns} connections`;
}

function stepName(s: StepResult): string {
  const load = STEP_METRICS.expected_per_s(s);
  return `step ${s.index} (${fmtInt(s.connections?.target)} connections${load ? `, ${fmtInt(load)} deliveries/s asked` : ''})`;
}

/**
 * The step's own first reason: not an "also:" line, nor the incomplete label the verdict shows
 * anyway.
 */
function reasonOf(s: StepResult): string {
  return (
    s.verdict_reasons.find((x) => !x.startsWith('also:') && !isIncompleteReason(x)) ?? s.verdict
  );
}

/**
 * A step cut short with its cause recorded, that did not fail on its own (stable, inconclusive or
 * generator-bound over the part that ran): "No step ran to its end: step 1 (…) was cut short by
 * SIGINT in the steady window (stable over the part that ran: …), …".
 */
function cutShortSentence(failed: StepResult): string {
  const over = `${failed.verdict} over the part that ran: ${reasonOf(failed)}`;
  return `No step ran to its end: ${stepName(failed)} was ${cutShortWords(failed.cut_short)} (${over}), and a step cut short is never capacity.`;
}

/**
 * What cut a step short that the sentence did not name, before its full stop: "; then step 3
 * (…) was cut short by SIGINT in the ramp".
 */
function withCutShort(sentence: string, steps: readonly StepResult[], named: StepResult[]): string {
  const cut = steps.find((s) => s.complete === false && s.cut_short && !named.includes(s));
  if (!cut) return sentence;
  // A server that went away is what ended the run: said in its own words.
  const why = reasonOf(cut);
  const then = why.startsWith(SERVER_WENT_AWAY)
    ? `; then, in ${stepName(cut)}, ${why}`
    : `; then ${stepName(cut)} was ${cutShortWords(cut.cut_short)}`;
  return `${sentence.slice(0, -1)}${then}.`;
}

export function headline(r: RunResult, safe: SafeLines = DEFAULT_SAFE_LINES): string {
  const steps = r.steps;
  if (steps.length === 0)
    return `No step ran${r.abort_reason ? `: ${r.abort_reason}` : ''}, so nothing was measured.`;
  const knee = findKnee(steps, driverOf(steps));
  const byIndex = new Map(steps.map((s) => [s.index, s]));

  if (!knee.safe) {
    const failedOf = (s: StepResult) => s.verdict !== 'stable' && !serverWentAwayIn(s);
    const failed = steps.find((s) => failedOf(s) && s.complete !== false) ?? steps.find(failedOf);
    const gone = steps.find(serverWentAwayIn);
    // A server that went away before any step failed on its own measured nothing of the server.
    if (!failed && gone)
      return `No step measured the server: in ${stepName(gone)}, ${reasonOf(gone)}; a server that went away reached no limit of its load.`;
    return noSafeStep(r, failed ?? steps[0], steps);
  }
  return withCutShort(safeHeadline(r, safe, knee, byIndex), steps, named(knee, byIndex));
}

/** Whether a step after `failed` was cut short by `why` (the sentence names it there). */
function laterCutBy(steps: readonly StepResult[], failed: StepResult, why: string): boolean {
  return steps.some(
    (s) => s.index > failed.index && s.complete === false && s.cut_short?.by === why,
  );
}

/** The sentence of a run without a safe step: the first step that failed, and why. */
function noSafeStep(r: RunResult, failed: StepResult, steps: readonly StepResult[]): string {
  const who = r.target.builtin ? 'The built-in server on this machine' : 'The server';
  const why = reasonOf(failed);
  const cut = failed.complete === false ? failed.cut_short : undefined;
  // A step that failed on its own (broken, degraded) says so, then what cut it short.
  if (cut && failed.verdict !== 'broken' && failed.verdict !== 'degraded')
    return withCutShort(cutShortSentence(failed), steps, [failed]);
  const what =
    failed.complete === false && !cut ? `${failed.verdict}, ${INCOMPLETE_LABEL}` : failed.verdict;
  // A server that went away is the step's reason and what cut it short: said once.
  const aborted = cut
    ? why.startsWith(SERVER_WENT_AWAY) && cut.by.startsWith(SERVER_WENT_AWAY)
      ? ', which ended the run'
      : `; it was ${cutShortWords(cut)}`
    : r.abort_reason && !laterCutBy(steps, failed, r.abort_reason)
      ? `; the run was ${r.status === 'interrupted' ? 'interrupted' : 'aborted'}: ${r.abort_reason}`
      : '';
  if (failed.verdict === 'generator-bound') {
    const gone = steps.find((s) => reasonOf(s).startsWith(SERVER_WENT_AWAY));
    const then = gone ? `; then, in ${stepName(gone)}, ${reasonOf(gone)}` : aborted;
    return `No step measured the server: ${stepName(failed)} was already generator-bound — ${why} — so the load generator, not the server, was the limit on this machine${then}.`;
  }
  return withCutShort(
    `${who} carried no step within the SLO (${sloText(r)}): ${stepName(failed)} was ${what} — ${why}${aborted}.`,
    steps,
    [failed],
  );
}

/** The steps a sentence with a safe step names: the safe one, and the first failure above it. */
function named(knee: Knee, byIndex: Map<number, StepResult>): StepResult[] {
  return [
    knee.safe?.step,
    knee.first_unsafe?.step,
    knee.generator_bound_above[0]?.step,
    knee.server_gone?.step,
  ].flatMap((i) => (i !== undefined && byIndex.has(i) ? [byIndex.get(i)!] : []));
}

/** The sentence of a run with a safe step: what it carried, and what limited it (or did not). */
function safeHeadline(
  r: RunResult,
  safe: SafeLines,
  knee: Knee,
  byIndex: Map<number, StepResult>,
): string {
  const who = r.target.builtin ? 'The built-in server on this machine' : 'The server';
  if (!knee.safe) return '';

  const best = byIndex.get(knee.safe.step)!;
  const at = `within the SLO (${sloText(r)}; step ${best.index}: p95 ${fmtMs(best.latency_ms?.p95)})`;
  if (knee.first_unsafe) {
    const next = byIndex.get(knee.first_unsafe.step)!;
    const limit = limitOfStep(next, { ...limitContextOf(r), safe });
    const words = limitWords(limit, { remedy: false });
    const remedy = limitRemedy(limit);
    const why = reasonOf(next);
    // A server that went away (killed, crashed) reached no limit of its load.
    if (why.startsWith(SERVER_WENT_AWAY))
      return `${who} carried ${carried(best, '≥ ')} ${at}; then ${why} in ${stepName(next)}, which was broken, so no limit was measured and this is a lower bound.`;
    const cut =
      next.complete === false && next.cut_short ? ` (${cutShortWords(next.cut_short)})` : '';
    const what = `${stepName(next)} was ${next.verdict}${cut}${words.includes(why) ? '' : `: ${why}`}`;
    if (isLowerBound(limit)) {
      return `${who} carried ${carried(best, '≥ ')} ${at}; what stopped the measurement: ${words} — ${what}; this is a lower bound on the server's own capacity${remedy ? ` (to measure further: ${remedy})` : ''}.`;
    }
    return `${who} carried ${carried(best, '')} ${at}; what limited it: ${words} — ${what}.`;
  }
  if (knee.generator_bound_above.length > 0) {
    const g = byIndex.get(knee.generator_bound_above[0].step)!;
    const limit = limitWords(limitOfStep(g, { ...limitContextOf(r), safe }));
    return `${who} carried ${carried(best, '≥ ')} ${at}; above that the load generator, not the server, was the limit: ${stepName(g)} was ${limit}, so this is a lower bound.`;
  }
  if (knee.server_gone) {
    const gone = byIndex.get(knee.server_gone.step)!;
    return `${who} carried ${carried(best, '≥ ')} ${at}; then, in ${stepName(gone)}, ${reasonOf(gone)}, so no limit was measured and this is a lower bound.`;
  }
  return `${who} carried ${carried(best, '≥ ')} ${at}; no limit was reached, so this is a lower bound.`;
}
