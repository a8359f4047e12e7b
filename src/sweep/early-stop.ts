/**
 * When a search ends a step before its time (docs/SWEEPS.md "Steps stopped early"): once its
 * verdict can no longer be stable, the rest of the step would only spend time, and load a server
 * past its limit, on a value the search already knows is not capacity.
 *
 * At the end of its ramp a step's joins are counted for good: a join that failed stays failed, a
 * refusal in the server's words stays said, an OS limit of the generator's own stays hit, and the
 * ramp's join rate and the joins the generator opened late are those of its whole ramp. Its
 * verdict is then judged by model/verdict itself on what the ramp counted with everything else at
 * its best (every message delivered, no latency, no lag, no disconnect): not stable there, it is
 * not stable whatever its steady window would measure, so the step ends with its ramp. One
 * definition of the rules, not a second copy of them.
 */
import { joinOfferedRatio, joinsPerS } from '../measure/join-figures.js';
import { rampMs } from '../model/verdict-from-step.js';
import { decideVerdict } from '../model/verdict.js';
import type { GeneratorLimits, VerdictInput, VerdictSlo } from '../model/verdict-input.js';
import type { RampOutcome } from '../run/run-options.js';
import { r3 } from '../util/round.js';

/** The verdict input of a step whose ramp counted `ramp` and whose rest went as well as it can. */
export function bestAfterRamp(ramp: RampOutcome): VerdictInput {
  const joinsOffered = joinOfferedRatio(ramp.scheduledJoins, ramp.joins.behindSchedule);
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
    // Every other part of the load at its best: the step's offered ratio is its joins'.
    generator_offered_ratio: joinsOffered,
    generator_offered_by_part: joinsOffered === null ? null : { joins: r3(joinsOffered) },
    connections_target: ramp.target,
    join_latency_p95_ms: null,
    join_rate: {
      measured_per_s: joinsPerS(ramp.joins),
      offered_per_s: ramp.joinRatePerS,
      ramp_ms: rampMs(ramp.scheduledJoins, ramp.joinRatePerS),
    },
    acks: null,
    latency_by_kind: null,
    presence_tracks: null,
    traffic: null,
  };
}

/**
 * Why a step whose ramp ended with `ramp` can no longer be stable ("degraded whatever the rest
 * measures: joins 9.3/s < 90% of the 16/s offered: …", its own reasons as the verdict words them),
 * or null when the rest of it could still make it stable.
 */
export function settledByRamp(
  ramp: RampOutcome,
  slo: VerdictSlo,
  limits: GeneratorLimits,
): string | null {
  const d = decideVerdict(bestAfterRamp(ramp), slo, limits);
  if (d.verdict === 'stable' || d.verdict === 'inconclusive') return null;
  const own = d.reasons.filter((r) => !r.startsWith('also:'));
  return `${d.verdict} whatever the rest measures: ${own.join('; ')}`;
}
