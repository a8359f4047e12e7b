/**
 * The offered load: what the generator attempted on time, against what the step scheduled.
 * A ratio under the generator limit's min_offered_ratio makes the step generator-bound.
 */
import type { SendRecord } from '../measure/aggregate.js';
import { OFFERED_GRACE_MS } from '../generator/schedule.js';
import type { StepPlan, TrafficKind } from '../scenarios/types.js';
import { r3 } from '../util/round.js';

/**
 * Sends the step scheduled, per traffic kind: every message of the plan's schedules (each is
 * fired by exactly one generator process, or counted unsent); for Postgres Changes the rows
 * the coordinator scheduled.
 */
export function scheduledOfKind(
  kind: TrafficKind,
  plan: Pick<StepPlan, 'broadcasts' | 'presence'>,
  insertsScheduled: number,
): number {
  if (kind === 'broadcast') return plan.broadcasts?.count ?? 0;
  if (kind === 'presence') return plan.presence?.count ?? 0;
  return insertsScheduled;
}

/**
 * Sends of the streams `counts` selects attempted by the end of the steady window (plus the
 * grace). A send that failed because the server had closed the socket was offered all the
 * same (it is counted as send_failed), so failed sends (NaN actual time) count.
 */
export function offeredInWindow(
  sends: readonly SendRecord[],
  counts: (stream: number) => boolean,
  steadyEndMs: number,
): number {
  let n = 0;
  for (const s of sends) {
    if (!counts(s.stream)) continue;
    for (const a of s.actual) if (Number.isNaN(a) || a <= steadyEndMs + OFFERED_GRACE_MS) n++;
  }
  return n;
}

/**
 * The offered ratio of each part of the load that scheduled anything: each traffic kind's
 * sends (for Postgres Changes, rows committed) and the joins. Rounded to 3 decimals.
 */
export function offeredByPart(parts: Record<string, number | null>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [part, r] of Object.entries(parts)) if (r !== null) out[part] = r3(r);
  return out;
}

/** Offered over scheduled sends; null when the step scheduled none. */
export function sendOfferedRatio(scheduled: number, offered: number): number | null {
  return scheduled > 0 ? offered / scheduled : null;
}

/**
 * The step's offered ratio: the lowest of its parts present (sends, joins: a generator behind
 * either schedule is generator-bound); null when none is.
 */
export function offeredRatio(parts: ReadonlyArray<number | null>): number | null {
  const present = parts.filter((x): x is number => x !== null);
  return present.length ? Math.min(...present) : null;
}
