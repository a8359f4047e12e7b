/**
 * The last two classes of a verdict (docs/VERDICTS.md): inconclusive — nothing failed but
 * nothing was measured either — and stable, with a reason that shows what was checked.
 */
import { fmtMs, fmtRate, fmtRatioPct } from './format.js';
import {
  MIN_JOIN_RAMP_MS,
  type VerdictDecision,
  type VerdictInput,
  type VerdictSlo,
} from './verdict-input.js';

/**
 * A step measured the server when it timed or counted a delivery, had a send acknowledged or
 * a join answered. (A delivery rate without latency exists only in transcribed results: rtcap
 * times every delivery it counts.)
 */
function somethingMeasured(input: VerdictInput): boolean {
  return (
    input.latency_p95_ms !== null ||
    input.delivery_rate !== null ||
    (input.acks?.acked ?? 0) > 0 ||
    (input.join_latency_p95_ms ?? null) !== null ||
    (input.join_rate?.measured_per_s ?? null) !== null
  );
}

/**
 * The inconclusive verdict of a step that measured nothing or sent none of its traffic; null
 * otherwise.
 */
export function inconclusiveDecision(input: VerdictInput): VerdictDecision | null {
  if (!somethingMeasured(input)) {
    return {
      verdict: 'inconclusive',
      reasons: ['nothing measured: no delivery latency, no acknowledged send, no join'],
    };
  }
  const traffic = input.traffic;
  if (traffic && traffic.asked_per_s > 0 && traffic.sent === 0) {
    return {
      verdict: 'inconclusive',
      reasons: [
        `nothing sent: ${fmtRate(traffic.asked_per_s)} asked for, none sent in the steady window; delivery and latency not measured`,
      ],
    };
  }
  return null;
}

/** What a stable step was checked on: delivery, then latency (or, join-only, its joins). */
export function stableReason(input: VerdictInput, slo: VerdictSlo): string {
  const parts: string[] = [];
  const p95 = input.latency_p95_ms;
  const jp95 = input.join_latency_p95_ms ?? null;
  const jr = input.join_rate;
  if (input.delivery_rate !== null) parts.push(`delivery ${fmtRatioPct(input.delivery_rate)}`);
  if (p95 !== null) parts.push(`p95 ${fmtMs(p95)} within SLO ${fmtMs(slo.p95_ms)}`);
  else if (jp95 !== null) {
    // A join-only step: what was measured are its joins.
    const rate = jr?.measured_per_s ?? null;
    parts.push(
      `${rate !== null ? `joins ${fmtRate(rate)}, ` : ''}join p95 ${fmtMs(jp95)}${slo.join_p95_ms !== undefined ? ` within SLO ${fmtMs(slo.join_p95_ms)}` : ''}`,
    );
  } else parts.push('no latency measured');
  // A ramp too short for its rate to be judged must not pass as if it had kept up: say so.
  if (jr && jr.measured_per_s !== null && jr.ramp_ms > 0 && jr.ramp_ms < MIN_JOIN_RAMP_MS) {
    parts.push(`join rate not judged (ramp ${fmtMs(jr.ramp_ms)} < ${fmtMs(MIN_JOIN_RAMP_MS)})`);
  }
  return parts.join(', ');
}
