/**
 * When a search ends a step before its time (docs/SWEEPS.md "Steps stopped early"): once its
 * verdict can no longer be stable, the rest of the step would only spend time on a value the
 * search already knows is past the limit.
 *
 * At the end of its ramp a step's joins are counted, and what they counted only grows: a join
 * that failed stays failed, a refusal in the server's words stays said, an OS limit of the
 * generator's own stays hit. Its verdict is then judged by model/verdict itself on what the ramp
 * counted with everything else at its best (no message lost, no latency, no lag, no disconnect):
 * broken or generator-bound there, it is broken or generator-bound whatever the steady window
 * would measure, so the step ends with its ramp. One definition of the rules, not a second copy.
 */
import { decideVerdict } from '../model/verdict.js';
import type { GeneratorLimits, VerdictInput, VerdictSlo } from '../model/verdict-input.js';
import type { RampOutcome } from '../run/run-options.js';

/** The verdict input of a step whose ramp counted `ramp` and whose rest went as well as it can. */
export function bestAfterRamp(ramp: RampOutcome): VerdictInput {
  return {
    delivery_rate: null,
    latency_p95_ms: null,
    latency_p99_ms: null,
    connections_failed: ramp.failed,
    connections_joined: ramp.joined,
    connections_disconnected: 0,
    messages_lost: 0,
    error_classes: {},
    errors: Object.fromEntries(ramp.errors),
    generator_cpu_pct: null,
    generator_lag_p99_ms: null,
    generator_offered_ratio: null,
    generator_offered_by_part: null,
    connections_target: ramp.target,
    join_latency_p95_ms: null,
    join_rate: null,
    acks: null,
    latency_by_kind: null,
    presence_tracks: null,
    traffic: null,
  };
}

/**
 * Why a step whose ramp ended with `ramp` can no longer be stable (its own reasons, as the
 * verdict words them), or null when the rest of it could still make it stable.
 */
export function settledByRamp(
  ramp: RampOutcome,
  slo: VerdictSlo,
  limits: GeneratorLimits,
): string | null {
  if (ramp.failed === 0 && ramp.errors.size === 0) return null;
  const d = decideVerdict(bestAfterRamp(ramp), slo, limits);
  if (d.verdict !== 'broken' && d.verdict !== 'generator-bound') return null;
  const own = d.reasons.filter((r) => !r.startsWith('also:'));
  return `${d.verdict} whatever the rest measures: ${own.join('; ')}`;
}
