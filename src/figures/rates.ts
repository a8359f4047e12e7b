/**
 * The step's rates (StepResult.rates) and its drain backlog. One definition of a rate
 * (docs/FIGURES.md): events counted by the time they happened — receive time for
 * deliveries, send (or commit) time for sends, ack time for acks — per second, over the steady
 * window. Receipts in the drain are deliveries but not throughput; how long the drain went on
 * receiving is the step's backlog.
 */
import type { MessageFigures, SendRecord } from '../measure/aggregate.js';
import { ackedPerS } from '../measure/ack-figures.js';
import type { StepResult } from '../result/result.js';
import { kindOfStream, TRAFFIC_KINDS, type TrafficKind } from '../scenarios/types.js';
import { deliveredByKind, type SecondRecord } from './timeline.js';
import { steadySeconds } from '../measure/steady-seconds.js';
import { r1, r3 } from '../util/round.js';
import { max, mean } from './stats.js';
import type { StepWindow } from './window.js';

/**
 * One second's deliveries of a kind over every process (all deliveries for lines without the
 * split).
 */
function deliveredInSecond(s: SecondRecord, kind: TrafficKind): number {
  return deliveredByKind(s.workers)[TRAFFIC_KINDS.indexOf(kind)];
}

/**
 * The highest 60 s sliding mean of `kind`'s deliveries per second during the step — the
 * per-kind `delivered_per_s_60s_max`, same window and clock as the all-kinds one (the run's
 * timeline, receive time); null when no second carries it.
 */
export function deliveredPerS60sMax(
  kind: TrafficKind,
  stepSecondsList: readonly SecondRecord[],
): number | null {
  const ki = TRAFFIC_KINDS.indexOf(kind);
  return max(
    stepSecondsList
      .map((s) => s.deliveredPerS60sByKind?.[ki])
      .filter((v): v is number => v !== undefined),
  );
}

/**
 * Deliveries of `kind` per second by receive time: the mean over the steady window's whole
 * seconds. A window holding no whole second (test-length steps) falls back to the kind's
 * deliveries over the window's length.
 */
export function deliveredPerS(
  kind: TrafficKind,
  steadySecondsList: readonly SecondRecord[],
  fallback: { received: number; steadyS: number },
): number {
  if (steadySecondsList.length === 0) return r1(fallback.received / fallback.steadyS);
  return r1(
    steadySecondsList.reduce((a, s) => a + deliveredInSecond(s, kind), 0) /
      steadySecondsList.length,
  );
}

/**
 * Sends of `kind` made (written, or committed for inserts) inside the steady window, per second of
 * it; failed sends are not sends.
 */
export function sentPerS(sends: readonly SendRecord[], kind: TrafficKind, w: StepWindow): number {
  let n = 0;
  for (const s of sends) {
    if (kindOfStream(s.stream) !== kind) continue;
    for (const a of s.actual) if (a >= w.steadyStart && a <= w.steadyEnd) n++;
  }
  return r1(n / steadySeconds(w));
}

export interface DrainBacklog {
  /**
   * Last receipt of the step after the steady window closed, in ms after it; 0 when none came
   * after; null with no receipt at all.
   */
  backlog_ms: number | null;
  /**
   * Deliveries in the whole seconds that start at or after the window's end (deliveries, not
   * throughput).
   */
  receipts_after_window: number;
}

export function drainBacklog(
  lastReceiptsMs: readonly number[],
  w: StepWindow,
  stepSecondsList: readonly SecondRecord[],
): DrainBacklog {
  const last = max(lastReceiptsMs.filter((t) => Number.isFinite(t) && t > 0));
  const after = stepSecondsList
    .filter((s) => s.point.t * 1000 >= w.steadyEnd)
    .reduce((a, s) => a + s.point.delivered_per_s, 0);
  return {
    backlog_ms: last === null ? null : Math.max(0, Math.round(last - w.steadyEnd)),
    receipts_after_window: after,
  };
}

/** The latest receipt time of every stream of every process. */
export function lastReceipts(
  collected: ReadonlyArray<{ receipts: { streams: ReadonlyArray<{ last: Float64Array }> } }>,
): number[] {
  const out: number[] = [];
  for (const c of collected) {
    for (const r of c.receipts.streams) {
      let m = -Infinity;
      for (const t of r.last) if (t > m) m = t;
      if (Number.isFinite(m)) out.push(m);
    }
  }
  return out;
}

export function stepRates(args: {
  figures: Pick<MessageFigures, 'received'>;
  sends: readonly SendRecord[];
  primaryKind: TrafficKind;
  window: StepWindow;
  /** Whole seconds of the steady window. */
  steadySeconds: readonly SecondRecord[];
  /** Seconds of the whole step (ramp to drain). */
  stepSeconds: readonly SecondRecord[];
  /** Measured first joins per second of the ramp (measure/join-figures). */
  joinsPerS: number | null;
  /** Measured reconnects per second (null when the step does not reconnect). */
  rejoinsPerS: number | null;
  ackRequested: boolean;
}): StepResult['rates'] {
  const steadyBytes = args.steadySeconds.map((s) => s.workers.reduce((a, x) => a + x.bytes, 0));
  return {
    sent_per_s: sentPerS(args.sends, args.primaryKind, args.window),
    acked_per_s: ackedPerS(args.ackRequested, args.steadySeconds),
    delivered_per_s: deliveredPerS(args.primaryKind, args.steadySeconds, {
      received: args.figures.received,
      steadyS: steadySeconds(args.window),
    }),
    joins_per_s: args.joinsPerS,
    rejoins_per_s: args.rejoinsPerS,
    delivered_per_s_60s_max: max(args.stepSeconds.map((s) => s.point.delivered_per_s_60s)),
    egress_mib_per_s: steadyBytes.length ? r3(mean(steadyBytes)! / 1048576) : null,
  };
}
