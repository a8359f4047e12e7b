/**
 * The third class of a verdict, degraded (docs/VERDICTS.md): everything delivered, but latency
 * over the SLO — of every kind when a step carried several — joins slower than the join SLO, or a
 * join rate the server did not keep up with.
 */
import { fmtMs, fmtPct, fmtRate } from './format.js';
import {
  JOIN_RATE_KEPT,
  MIN_JOIN_RAMP_MS,
  type VerdictInput,
  type VerdictSlo,
} from './verdict-input.js';

/**
 * First-receipt latency against the SLO — of every kind when the step carried several, so a
 * mixed step whose secondary kind the server held back is not stable on its headline kind.
 */
function latencyReasons(input: VerdictInput, slo: VerdictSlo): string[] {
  const out: string[] = [];
  const byKind = Object.entries(input.latency_by_kind ?? {});
  const latencies =
    byKind.length > 1
      ? byKind.map(([kind, l]) => ({ name: `${kind} `, p95: l.p95_ms, p99: l.p99_ms }))
      : [{ name: '', p95: input.latency_p95_ms, p99: input.latency_p99_ms }];
  for (const l of latencies) {
    if (l.p95 !== null && l.p95 > slo.p95_ms)
      out.push(`${l.name}p95 ${fmtMs(l.p95)} > SLO ${fmtMs(slo.p95_ms)}`);
    if (slo.p99_ms !== undefined && l.p99 !== null && l.p99 > slo.p99_ms)
      out.push(`${l.name}p99 ${fmtMs(l.p99)} > SLO ${fmtMs(slo.p99_ms)}`);
  }
  return out;
}

/** Join p95 over its SLO, and a measured join rate below what was offered on a judged ramp. */
function joinReasons(input: VerdictInput, slo: VerdictSlo): string[] {
  const out: string[] = [];
  const jp95 = input.join_latency_p95_ms ?? null;
  if (slo.join_p95_ms !== undefined && jp95 !== null && jp95 > slo.join_p95_ms) {
    out.push(`join p95 ${fmtMs(jp95)} > SLO ${fmtMs(slo.join_p95_ms)}`);
  }
  const jr = input.join_rate;
  if (
    jr &&
    jr.measured_per_s !== null &&
    jr.ramp_ms >= MIN_JOIN_RAMP_MS &&
    jr.measured_per_s < JOIN_RATE_KEPT * jr.offered_per_s
  ) {
    out.push(
      `joins ${fmtRate(jr.measured_per_s)} < ${fmtPct(JOIN_RATE_KEPT * 100, 0)} of the ${fmtRate(jr.offered_per_s)} offered: the server fell behind the join schedule`,
    );
  }
  return out;
}

/** Every way the step's experience fell short of the SLO. */
export function degradedReasons(input: VerdictInput, slo: VerdictSlo): string[] {
  return [...latencyReasons(input, slo), ...joinReasons(input, slo)];
}
