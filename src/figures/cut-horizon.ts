/**
 * A step cut short is measured over the part of its schedule that ran: the messages (and rows)
 * due a grace (OFFERED_GRACE_MS) before the cut. A generator keeping up had made those by the
 * cut and their receipts had the time to arrive; a later one may still have been on its way, so
 * counting it would make the cut read as the generator falling behind (offered) or the server
 * losing messages (lost). Joins are not cut: a join not yet due counts as on time already.
 */
import type { StepCollected } from '../generator/ipc.js';
import type { SendRecord } from '../measure/aggregate.js';
import { OFFERED_GRACE_MS, OpenSchedule } from '../generator/schedule.js';

/** The horizon of a step cut short at `cutAtMs`; null for a step that ran whole. */
export function dueHorizon(cutAtMs: number | null): number | null {
  return cutAtMs === null ? null : cutAtMs - OFFERED_GRACE_MS;
}

/** Of `count` events at `ratePerS` from `startMs`, how many were due by `horizonMs`. */
export function dueOfSchedule(
  startMs: number,
  ratePerS: number,
  count: number,
  horizonMs: number,
): number {
  return Math.min(count, new OpenSchedule(startMs, ratePerS).dueBy(horizonMs));
}

/**
 * Per stream, the first seq due after the horizon (a stream's seqs are due in order, whichever
 * process sent each); streams with none are absent.
 */
function firstPastHorizon(sends: readonly SendRecord[], horizonMs: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const s of sends) {
    const i = s.sched.findIndex((t) => t > horizonMs);
    if (i >= 0 && i < (out.get(s.stream) ?? Infinity)) out.set(s.stream, i);
  }
  return out;
}

/**
 * The sends due by the horizon, and the processes' collections with the receipts of those only
 * (a later message's receipts go with it: neither expected nor excess).
 */
export function withinHorizon<C extends Pick<StepCollected, 'receipts'>>(
  sends: readonly SendRecord[],
  collected: readonly C[],
  horizonMs: number,
): { sends: SendRecord[]; collected: C[] } {
  const cut = firstPastHorizon(sends, horizonMs);
  if (cut.size === 0) return { sends: [...sends], collected: [...collected] };
  const keep = (stream: number) => cut.get(stream) ?? Infinity;
  return {
    sends: sends.map((s) =>
      cut.has(s.stream)
        ? {
            ...s,
            sched: s.sched.slice(0, keep(s.stream)),
            actual: s.actual.slice(0, keep(s.stream)),
          }
        : s,
    ),
    collected: collected.map((c) => ({
      ...c,
      receipts: {
        ...c.receipts,
        streams: c.receipts.streams.map((r) =>
          cut.has(r.stream)
            ? {
                ...r,
                count: r.count.slice(0, keep(r.stream)),
                first: r.first.slice(0, keep(r.stream)),
                last: r.last.slice(0, keep(r.stream)),
              }
            : r,
        ),
      },
    })),
  };
}
