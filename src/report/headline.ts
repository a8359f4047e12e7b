/**
 * The one sentence that answers the question a run asks: how many deliveries/s and
 * connections the server carried within the SLO, and what limited it — or, when nothing
 * did, that the figure is a lower bound ("≥ …"). It cites only a measured, complete, stable
 * step (the knee's `safe` step), never a fit's extrapolation, a generator-bound step or an
 * incomplete one.
 */
import { DEFAULT_SAFE_LINES, type SafeLines } from '../model/capacity.js';
import { isLowerBound, limitRemedy, limitWords } from '../model/limit.js';
import { limitContextOf, limitOfStep } from '../model/step-limit.js';
import { fmtInt, fmtMs, fmtRatioPct, INCOMPLETE_LABEL } from '../model/format.js';
import { findKnee } from '../model/knee.js';
import { SERVER_WENT_AWAY } from '../model/verdict.js';
import { STEP_METRICS, type StepMetricName } from '../model/metrics.js';
import type { RunResult, StepResult } from '../result/result.js';

/**
 * The load the steps asked for, in the order a ramp raises it: deliveries/s where messages flow.
 */
export function driverOf(steps: readonly StepResult[]): StepMetricName {
  return steps.some((s) => (STEP_METRICS.expected_per_s(s) ?? 0) > 0)
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
    s.verdict_reasons.find((x) => !x.startsWith('also:') && !x.startsWith(INCOMPLETE_LABEL)) ??
    s.verdict
  );
}

export function headline(r: RunResult, safe: SafeLines = DEFAULT_SAFE_LINES): string {
  const who = r.target.builtin ? 'The built-in server on this machine' : 'The server';
  const steps = r.steps;
  if (steps.length === 0)
    return `No step ran${r.abort_reason ? `: ${r.abort_reason}` : ''}, so nothing was measured.`;
  const knee = findKnee(steps, driverOf(steps));
  const byIndex = new Map(steps.map((s) => [s.index, s]));

  if (!knee.safe) {
    const failed =
      steps.find((s) => s.verdict !== 'stable' && s.complete !== false) ??
      steps.find((s) => s.verdict !== 'stable') ??
      steps[0];
    const why = reasonOf(failed);
    const what =
      failed.complete === false ? `${failed.verdict}, ${INCOMPLETE_LABEL}` : failed.verdict;
    const aborted = r.abort_reason ? `; the run was aborted: ${r.abort_reason}` : '';
    if (failed.verdict === 'generator-bound') {
      const gone = steps.find((s) => reasonOf(s).startsWith(SERVER_WENT_AWAY));
      const then = gone ? `; then, in ${stepName(gone)}, ${reasonOf(gone)}` : aborted;
      return `No step measured the server: ${stepName(failed)} was already generator-bound — ${why} — so the load generator, not the server, was the limit on this machine${then}.`;
    }
    return `${who} carried no step within the SLO (${sloText(r)}): ${stepName(failed)} was ${what} — ${why}${aborted}.`;
  }

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
    const what = `${stepName(next)} was ${next.verdict}${words.includes(why) ? '' : `: ${why}`}`;
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
  return `${who} carried ${carried(best, '≥ ')} ${at}; no limit was reached, so this is a lower bound.`;
}
