/**
 * Message figures per traffic kind (broadcast, presence, changes): each kind's sends matched
 * with its receipts. The step's headline figures are those of its primary kind; a step that
 * carries several kinds reports each in extra.kinds.
 */
import {
  aggregateMessages,
  emptyFigures,
  type LatencyOrigin,
  type MessageFigures,
  type SenderMachines,
  type ReceiptRecord,
  type SendRecord,
  type StreamInfo,
} from '../measure/aggregate.js';
import {
  createHistogram,
  mergeEncoded,
  percentilesOf,
  pickPercentiles,
  type Histogram,
} from '../measure/histogram.js';
import type { StepCollected } from '../generator/ipc.js';
import { kindOfStream, TRAFFIC_KINDS, type TrafficKind } from '../scenarios/types.js';
import { r6 } from '../util/round.js';

export interface KindFigures {
  figures: MessageFigures;
  /** Every receipt's latency for this kind. */
  deliveryHistogram: Histogram;
  /**
   * First receipts of this kind below the highest seq seen of their stream (deliveries), summed
   * over processes.
   */
  reordered?: number;
  /** Second and later receipts of this kind's (stream, seq) on one connection. */
  duplicates?: number;
}

export type FiguresByKind = Partial<Record<TrafficKind, KindFigures>>;

/** Figures of every kind that sent something, and of the primary kind even when it sent nothing. */
export function figuresByKind(args: {
  collected: ReadonlyArray<Pick<StepCollected, 'receipts'>>;
  sends: readonly SendRecord[];
  primaryKind: TrafficKind;
  info: (stream: number) => StreamInfo;
  /** A run split over machines: latency from the sender's machine's receipts only. */
  origin?: SenderMachines | null;
}): FiguresByKind {
  const kinds: FiguresByKind = {};
  for (const [ki, kind] of TRAFFIC_KINDS.entries()) {
    const sends = args.sends.filter((s) => kindOfStream(s.stream) === kind);
    if (sends.length === 0 && args.primaryKind !== kind) continue;
    const receipts: ReceiptRecord[][] = args.collected.map((c) =>
      c.receipts.streams.filter((r) => kindOfStream(r.stream) === kind),
    );
    const deliveryHistogram = mergeEncoded(
      args.collected.map((c) => c.receipts.kindHistograms?.[ki]),
    );
    const reordered = args.collected.reduce(
      (a, c) => a + (c.receipts.reorderedByKind?.[ki] ?? 0),
      0,
    );
    const duplicates = args.collected.reduce(
      (a, c) => a + (c.receipts.duplicatesByKind?.[ki] ?? 0),
      0,
    );
    kinds[kind] = {
      figures: aggregateMessages([...sends], receipts, args.info, {
        latencyFrom: latencyOriginOf(kind),
        origin: args.origin ?? null,
      }),
      deliveryHistogram,
      reordered,
      duplicates,
    };
  }
  return kinds;
}

/**
 * A kind's first-receipt latency counts from the scheduled send time, except Postgres Changes:
 * from the row's commit (its actual insert time), since rows queued in rtcap's insert lanes
 * are rtcap's backlog — an offered shortfall of the inserts, never the server's latency.
 */
export function latencyOriginOf(kind: TrafficKind): LatencyOrigin {
  return kind === 'changes' ? 'actual' : 'scheduled';
}

/** The primary kind's figures (empty when it has none). */
export function primaryOf(kinds: FiguresByKind, primaryKind: TrafficKind): KindFigures {
  return kinds[primaryKind] ?? { figures: emptyFigures(), deliveryHistogram: createHistogram() };
}

export function kindList(kinds: FiguresByKind): KindFigures[] {
  return Object.values(kinds).filter((k): k is KindFigures => k !== undefined);
}

/** received / expected, null when nothing was expected. */
export function deliveryRateOf(f: Pick<MessageFigures, 'expected' | 'received'>): number | null {
  return f.expected > 0 ? f.received / f.expected : null;
}

/**
 * The lowest delivery rate over the kinds: every kind the step carried must be delivered (a
 * mixed step that lost presence diffs is broken even when its headline kind arrived in full).
 */
export function worstDeliveryRate(kinds: FiguresByKind): number | null {
  return kindList(kinds)
    .map((k) => deliveryRateOf(k.figures))
    .reduce<number | null>((a, r) => (r === null ? a : a === null ? r : Math.min(a, r)), null);
}

/** Messages lost over every kind. */
export function lostOverKinds(kinds: FiguresByKind): number {
  return kindList(kinds).reduce((a, k) => a + k.figures.lost, 0);
}

/**
 * One kind's counts and latencies in extra.kinds (its rates and offered ratio are added beside
 * them).
 */
export function kindSummary(k: KindFigures) {
  const f = k.figures;
  const rate = deliveryRateOf(f);
  return {
    sent: f.sent,
    expected: f.expected,
    received: f.received,
    lost: f.lost,
    reordered: k.reordered ?? 0,
    duplicates: k.duplicates ?? 0,
    delivery_rate: rate === null ? null : r6(rate),
    latency_ms: pickPercentiles(percentilesOf(f.firstLatency)),
    delivery_latency_ms: pickPercentiles(percentilesOf(k.deliveryHistogram)),
  };
}
