/** What the verdict (model/verdict) is decided on, from the step's figures. */
import type { AckFigures } from '../measure/ack-figures.js';
import type { VerdictInput } from '../model/verdict-input.js';
import { percentilesOf } from '../measure/histogram.js';
import type { ErrorClass, Percentiles, StepResult } from '../result/result.js';
import { lostOverKinds, worstDeliveryRate, type FiguresByKind } from './kinds.js';

/** Each kind's first-receipt p95 and p99 when the step carried several kinds; null otherwise. */
export function latencyByKind(kinds: FiguresByKind): VerdictInput['latency_by_kind'] {
  const entries = Object.entries(kinds).filter(([, k]) => k !== undefined);
  if (entries.length < 2) return null;
  return Object.fromEntries(
    entries.map(([kind, k]) => {
      const p = percentilesOf(k!.figures.firstLatency);
      return [kind, { p95_ms: p.p95, p99_ms: p.p99 }];
    }),
  );
}

export function verdictInputs(args: {
  kinds: FiguresByKind;
  /** The primary kind's delivery rate (used when no kind expected anything). */
  deliveryRate: number | null;
  latency: Pick<Percentiles, 'p95' | 'p99'>;
  connectionsTarget: number;
  /** The step was cut short in its ramp: members it had not joined yet are not failures. */
  rampCutShort?: boolean;
  membersAtSteady: number;
  /** First joins made in this step's ramp. */
  joinedInStep: number;
  failed: number;
  disconnected: number;
  errors: Record<string, number>;
  errorClasses: Record<ErrorClass, number>;
  generator: Pick<
    StepResult['generator'],
    'cpu_pct' | 'event_loop_lag_p99_ms' | 'offered_ratio' | 'offered_by_part'
  >;
  /** Join latency p95 from the scheduled join time. */
  joinLatencyP95Ms: number | null;
  joinRate: NonNullable<VerdictInput['join_rate']>;
  /** Null when the step asked for no acks. */
  acks: AckFigures | null;
  /** Presence tracks unanswered and untracked (generator/ack-tracker); absent: none sent. */
  presenceTracks?: { unanswered: number; untracked: number } | null;
  /** What the step's plan asked per second (every traffic kind) and what was sent. */
  traffic?: VerdictInput['traffic'];
}): VerdictInput {
  return {
    delivery_rate: worstDeliveryRate(args.kinds) ?? args.deliveryRate,
    latency_p95_ms: args.latency.p95,
    latency_p99_ms: args.latency.p99,
    // A step measured with fewer members than it asked for is not the load it claims, even
    // when the missing ones failed in an earlier step (failures are not retried).
    connections_failed: args.rampCutShort
      ? args.failed
      : Math.max(args.failed, args.connectionsTarget - args.membersAtSteady),
    // Whether anyone could join at all (a refusing target is the server's answer, not the
    // generator's shortfall).
    connections_joined: Math.max(args.joinedInStep, args.membersAtSteady),
    connections_target: args.connectionsTarget,
    join_latency_p95_ms: args.joinLatencyP95Ms,
    join_rate: args.joinRate,
    connections_disconnected: args.disconnected,
    messages_lost: lostOverKinds(args.kinds),
    error_classes: args.errorClasses,
    errors: args.errors,
    generator_cpu_pct: args.generator.cpu_pct,
    generator_lag_p99_ms: args.generator.event_loop_lag_p99_ms,
    generator_offered_ratio: args.generator.offered_ratio,
    generator_offered_by_part: args.generator.offered_by_part ?? null,
    latency_by_kind: latencyByKind(args.kinds),
    presence_tracks: args.presenceTracks ?? null,
    traffic: args.traffic ?? null,
    acks: args.acks
      ? {
          unacked: args.acks.unacked,
          errors: args.acks.ackErrors,
          untracked: args.acks.untracked,
          acked: args.acks.acked,
        }
      : null,
  };
}
