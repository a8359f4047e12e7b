/**
 * The verdict input of a recorded step, so a result is judged again under another SLO exactly
 * as the run judged it.
 */
import type { StepResult } from '../result/result.js';
import type { VerdictInput } from './verdict-input.js';

/** The verdict input of a recorded step (to re-judge a result under another SLO). */
export function verdictInputFromStep(step: StepResult): VerdictInput {
  return {
    delivery_rate: step.delivery_rate,
    latency_p95_ms: step.latency_ms?.p95 ?? null,
    latency_p99_ms: step.latency_ms?.p99 ?? null,
    connections_failed: step.connections?.failed ?? 0,
    connections_joined: step.connections?.joined ?? null,
    connections_disconnected: step.connections?.disconnected ?? 0,
    messages_lost: step.messages?.lost ?? 0,
    error_classes: step.error_classes ?? {},
    errors: step.errors,
    generator_cpu_pct: step.generator?.cpu_pct ?? null,
    generator_lag_p99_ms: step.generator?.event_loop_lag_p99_ms ?? null,
    generator_offered_ratio: step.generator?.offered_ratio ?? null,
    generator_offered_by_part: step.generator?.offered_by_part ?? null,
    connections_target: step.connections?.target,
    join_latency_p95_ms: step.connections?.join_latency_ms?.p95 ?? null,
    join_rate: joinRateOfStep(step),
    latency_by_kind: latencyByKindOfStep(step),
    presence_tracks: presenceTracksOfStep(step),
    acks:
      step.messages?.unacked === undefined
        ? null
        : {
            unacked: step.messages.unacked,
            errors: step.messages.ack_errors ?? 0,
            untracked: step.messages.ack_untracked ?? 0,
            acked: step.messages.acked ?? 0,
          },
  };
}

/** The presence-track counts of a recorded step (extra), null for results without them. */
function presenceTracksOfStep(step: StepResult): VerdictInput['presence_tracks'] {
  const e = step.extra ?? {};
  if (
    typeof e.presence_tracks_unanswered !== 'number' &&
    typeof e.presence_tracks_untracked !== 'number'
  )
    return null;
  return {
    unanswered: Number(e.presence_tracks_unanswered ?? 0),
    untracked: Number(e.presence_tracks_untracked ?? 0),
  };
}

/** Each kind's latency of a recorded step that carried several (extra.kinds); null otherwise. */
function latencyByKindOfStep(step: StepResult): VerdictInput['latency_by_kind'] {
  const kinds = step.extra?.kinds as
    Record<string, { latency_ms?: { p95?: number | null; p99?: number | null } }> | undefined;
  if (!kinds || Object.keys(kinds).length < 2) return null;
  return Object.fromEntries(
    Object.entries(kinds).map(([k, v]) => [
      k,
      { p95_ms: v.latency_ms?.p95 ?? null, p99_ms: v.latency_ms?.p99 ?? null },
    ]),
  );
}

/** The join-rate input of a recorded step; null for results written before joins were measured. */
function joinRateOfStep(step: StepResult): VerdictInput['join_rate'] {
  const offered = step.params?.join_rate;
  const scheduled = step.connections?.scheduled_joins;
  if (typeof offered !== 'number' || offered <= 0 || scheduled === undefined) return null;
  return {
    measured_per_s: step.rates?.joins_per_s ?? null,
    offered_per_s: offered,
    ramp_ms: rampMs(scheduled, offered),
  };
}

/** How long a ramp of `scheduled` joins at `ratePerS` lasts, first due → last due. */
export function rampMs(scheduled: number, ratePerS: number): number {
  return scheduled > 1 && ratePerS > 0 ? ((scheduled - 1) / ratePerS) * 1000 : 0;
}
