/**
 * Builds a StepResult from what the generator processes collected (and the coordinator's own
 * inserts), the per-second timeline and the server samples of the step's windows. Every
 * figure is measured; missing ones are null (docs/FIGURES.md "Measurement rules"). Each figure
 * is made by one function in ./figures (docs/FIGURES.md holds their definitions); this file calls
 * them, sums the processes' plain counts (connections, sends, receipts) and assembles the
 * result. The headline figures are those of the step's primary traffic kind; a step carrying
 * several kinds has each in extra.kinds.
 */
import type { SendRecord } from '../measure/aggregate.js';
import { compactHistogram, percentilesOf, type Histogram } from '../measure/histogram.js';
import type { StepCollected } from '../load/ipc.js';
import type { Profile } from '../profile/schema.js';
import { HISTOGRAM_LE_MS, type StepResult } from '../result/result.js';
import { kindOfStream, type StepPlan, type TrafficKind } from '../scenarios/types.js';
import { getScenario } from '../scenarios/index.js';
import { decideVerdict } from '../model/verdict.js';
import { INCOMPLETE_LABEL } from '../model/format.js';
import type { SecondRecord } from './timeline.js';
import type { ResourceSample } from '../monitor/types.js';
import type { GaugeSample } from '../monitor/gauges.js';
import { declaredBasis, type ServerBasis } from '../monitor/server-basis.js';
import { ackFigures } from '../measure/ack-figures.js';
import { joinFigures, joinOfferedRatio, joinsPerS, rejoinsPerS } from '../measure/join-figures.js';
import { rampMs } from '../model/verdict.js';
import type { InsertStats } from './inserts.js';
import { mergeErrors } from './figures/errors.js';
import {
  deliveryRateOf,
  figuresByKind,
  kindSummary,
  primaryOf,
  type FiguresByKind,
  type KindFigures,
} from './figures/kinds.js';
import { mergeHistograms, pickPercentiles } from './figures/latency.js';
import { membersAt, mergeMemberships, streamInfoOf } from './figures/membership.js';
import {
  offeredByPart,
  offeredInWindow,
  offeredRatio,
  scheduledOfKind,
  sendOfferedRatio,
} from './figures/offered.js';
import {
  deliveredPerS,
  deliveredPerS60sMax,
  drainBacklog,
  lastReceipts,
  sentPerS,
  stepRates,
} from './figures/rates.js';
import {
  databaseFigures,
  generatorFigures,
  openFilesField,
  samplesInWindow,
  serverFigures,
} from './figures/resources.js';
import { hostFigures } from './figures/host.js';
import type { HostSample } from '../monitor/host.js';
import { r3, r6, sumOf } from './figures/round.js';
import { verdictInputs } from './figures/verdict-inputs.js';
import { latencyScope } from './figures/latency-scope.js';
import { senderSegmentOf } from '../load/segment.js';
import { steadySeconds as steadySecondsOf, type StepWindow } from './figures/window.js';

export type { StepWindow } from './figures/window.js';
export type { KindFigures } from './figures/kinds.js';
export type { InsertStats } from './inserts.js';

/** What a scenario may read to fill its StepResult.extra. */
export interface StepContext {
  profile: Profile;
  plan: StepPlan;
  collected: StepCollected[];
  window: StepWindow;
  kinds: Partial<Record<TrafficKind, KindFigures>>;
  steadySeconds: SecondRecord[];
  stepSeconds: SecondRecord[];
  /** Merged across processes. */
  ackLatency: Histogram;
  commitLatency: Histogram;
  insertStats: InsertStats | null;
  /**
   * The target is the built-in server rtcap started, so its tenant config is
   * profile.target.server.config.
   */
  builtin: boolean;
  /** The run's earlier steps (mixed: each component's solo step). */
  previous: readonly StepResult[];
  /** Server gauges scraped once a second during the run (monitor/gauges), e.g. the CDC poller's. */
  serverGauges: readonly GaugeSample[];
}

export interface StepInputs {
  profile: Profile;
  plan: StepPlan;
  collected: StepCollected[];
  /** Rows the coordinator inserted (Postgres Changes). */
  inserts: SendRecord[];
  insertStats: InsertStats | null;
  window: StepWindow;
  steadySeconds: SecondRecord[];
  /**
   * Sum of the generator processes' RSS before any connection (MiB), for
   * generator.rss_per_connection_kb.
   */
  generatorIdleRssMb?: number | null;
  stepSeconds: SecondRecord[];
  serverSamples: ResourceSample[];
  serverSource: string | null;
  /** What the server can use (monitor/server-basis); the declared instance when absent. */
  serverBasis?: ServerBasis;
  workers: number;
  complete: boolean;
  builtin?: boolean;
  previousSteps?: readonly StepResult[];
  serverGauges?: readonly GaugeSample[];
  /** The generator host, one sample a second (monitor/host). */
  hostSamples?: readonly HostSample[];
  /**
   * Segments the run was split into (load/segment; absent: 1). With more than one, latency
   * uses only receipts whose sender ran on the receiver's machine (counts use all).
   */
  segments?: number;
}

export function buildStepResult(args: StepInputs): StepResult {
  const { profile, plan, collected, window: w } = args;
  const sum = (f: (c: StepCollected) => number) => sumOf(collected, f);

  const byKey = mergeMemberships(collected);
  const membersAtSteady = membersAt(byKey, w.steadyStart);
  const allSends: SendRecord[] = [...collected.flatMap((c) => c.sends), ...args.inserts];
  const segments = args.segments ?? 1;
  const origin =
    segments > 1
      ? {
          processSegments: collected.map((c) => c.segment ?? 0),
          senderSegmentOf: senderSegmentOf(plan, segments),
        }
      : null;
  const kinds: FiguresByKind = figuresByKind({
    collected,
    sends: allSends,
    primaryKind: plan.primaryKind,
    info: streamInfoOf(plan, byKey),
    origin,
  });
  const primary = primaryOf(kinds, plan.primaryKind);
  const figures = primary.figures;

  const scheduled =
    plan.primaryKind === 'changes'
      ? (args.insertStats?.scheduled ?? 0)
      : sum((c) => c.sendStats.scheduled);
  const offered = offeredInWindow(
    allSends,
    (stream) => kindOfStream(stream) === plan.primaryKind,
    w.steadyEnd,
  );
  const lateJoins = sum((c) => c.connections.lateJoins);
  const scheduledJoins = sum((c) => c.connections.scheduledJoins);
  const joins = joinFigures(collected);
  const joinsPerSecond = joinsPerS(joins);
  // Every part of the load is offered load: a generator behind any kind's schedule, or the
  // join schedule, is generator-bound, not only behind the primary kind's.
  const parts: Record<string, number | null> = {};
  for (const kind of Object.keys(kinds) as TrafficKind[]) {
    const own = offeredInWindow(allSends, (stream) => kindOfStream(stream) === kind, w.steadyEnd);
    parts[kind] = sendOfferedRatio(
      scheduledOfKind(kind, plan, args.insertStats?.scheduled ?? 0),
      own,
    );
  }
  parts.joins = joinOfferedRatio(scheduledJoins, joins.behindSchedule);
  const ratio = offeredRatio(Object.values(parts));

  const histograms = mergeHistograms(collected);
  // Once: a histogram's mean walks all its buckets (≈ 25 ms for a ramp's join latencies).
  const joinLatency = percentilesOf(histograms.join);
  const { errors, errorClasses } = mergeErrors(collected, args.insertStats?.errors);
  const joinedInStep = sum((c) => c.connections.joined);
  const firstSteady = args.steadySeconds[0]?.point;
  const samples = samplesInWindow(args.serverSamples, w);

  const latency = percentilesOf(figures.firstLatency);
  const deliveryRate = deliveryRateOf(figures);
  const failed = sum((c) => c.connections.failed);
  const disconnected = sum((c) => c.connections.disconnected);
  const generator = generatorFigures({
    steadySeconds: args.steadySeconds,
    workers: args.workers,
    lagsP99Ms: collected.map((c) => c.lagP99Ms),
    offeredRatio: ratio,
    offeredByPart: offeredByPart(parts),
    lateJoins,
    idleRssMb: args.generatorIdleRssMb ?? null,
    joined: membersAtSteady,
  });
  if (args.hostSamples) generator.host = hostFigures(args.hostSamples, w);
  const ackRequested =
    profile.load.ack && profile.target.dialect === 'supabase' && (plan.broadcasts?.count ?? 0) > 0;
  const acks = ackFigures(collected);
  const presenceTracks = {
    unanswered: sum((c) => c.presenceTracks?.unanswered ?? 0),
    untracked: sum((c) => c.presenceTracks?.untracked ?? 0),
  };
  const decision = decideVerdict(
    verdictInputs({
      kinds,
      deliveryRate,
      latency,
      connectionsTarget: plan.connections,
      membersAtSteady,
      joinedInStep,
      joinLatencyP95Ms: joinLatency.p95,
      joinRate: {
        measured_per_s: joinsPerSecond,
        offered_per_s: plan.joinRatePerS,
        ramp_ms: rampMs(scheduledJoins, plan.joinRatePerS),
      },
      failed,
      disconnected,
      errors,
      errorClasses,
      generator,
      acks: ackRequested ? acks : null,
      presenceTracks,
      traffic: {
        asked_per_s:
          (plan.broadcasts?.ratePerS ?? 0) +
          (plan.presence?.ratePerS ?? 0) +
          (plan.inserts?.ratePerS ?? 0),
        sent: allSends.length,
      },
    }),
    profile.slo,
    profile.generator,
  );
  const reasons = [...decision.reasons];
  if (!args.complete) reasons.unshift(`${INCOMPLETE_LABEL}: figures cover only what ran`);

  const ctx: StepContext = {
    profile,
    plan,
    collected,
    window: w,
    kinds,
    steadySeconds: args.steadySeconds,
    stepSeconds: args.stepSeconds,
    ackLatency: histograms.ack,
    commitLatency: histograms.commit,
    insertStats: args.insertStats,
    builtin: args.builtin ?? false,
    previous: args.previousSteps ?? [],
    serverGauges: args.serverGauges ?? [],
  };
  const steadyS = steadySecondsOf(w);
  const kindCount = Object.keys(kinds).length;
  const extra: Record<string, unknown> = {
    joined_in_step: joinedInStep,
    members_at_end: sum((c) => c.connections.joinedAtEnd),
    reconnects: sum((c) => c.connections.reconnects),
    unsent_sends: sum((c) => c.sendStats.unsent),
    messages_never_received: figures.messagesUnseen,
    stale_receipts: sum((c) => c.receipts.stale),
    ack_errors: sum((c) => c.acks.errors),
    presence_tracks_unanswered: presenceTracks.unanswered,
    presence_tracks_untracked: presenceTracks.untracked,
    ack_latency_ms: histograms.ack.totalCount
      ? pickPercentiles(percentilesOf(histograms.ack))
      : null,
    send_buffer_peak_bytes: Math.max(0, ...collected.map((c) => c.sendBufferPeakBytes ?? 0)),
    offered_sends_in_window: offered,
    drain_ms: Math.round(w.drainEnd - w.steadyEnd),
    ...(origin ? { latency_scope: latencyScope(collected, figures) } : {}),
    ...(kindCount > 1
      ? {
          kinds: Object.fromEntries(
            (Object.entries(kinds) as Array<[TrafficKind, KindFigures]>).map(([k, v]) => [
              k,
              {
                ...kindSummary(v),
                sent_per_s: sentPerS(allSends, k, w),
                delivered_per_s: deliveredPerS(k, args.steadySeconds, {
                  received: v.figures.received,
                  steadyS,
                }),
                delivered_per_s_60s_max: deliveredPerS60sMax(k, args.stepSeconds),
                offered_ratio: parts[k] === null || parts[k] === undefined ? null : r3(parts[k]!),
              },
            ]),
          ),
        }
      : {}),
    ...(getScenario(profile.scenario).extra?.(ctx) ?? {}),
  };

  return {
    index: plan.step + 1,
    label: plan.label,
    params: plan.params,
    verdict: decision.verdict,
    verdict_reasons: reasons,
    window: {
      ramp_start: w.rampStart,
      steady_start: w.steadyStart,
      steady_end: w.steadyEnd,
      drain_end: w.drainEnd,
    },
    complete: args.complete,
    connections: {
      target: plan.connections,
      opened: firstSteady ? firstSteady.connections_open : sum((c) => c.connections.openAtEnd),
      joined: membersAtSteady,
      failed,
      disconnected,
      open_at_end: sum((c) => c.connections.openAtEnd),
      join_latency_ms: joinLatency,
      scheduled_joins: scheduledJoins,
      first_joins: joins.rampJoined,
    },
    messages: {
      scheduled,
      sent: figures.sent,
      send_failed: figures.sendFailed,
      late:
        plan.primaryKind === 'changes'
          ? (args.insertStats?.late ?? 0)
          : sum((c) => c.sendStats.late),
      expected: figures.expected,
      received: figures.received,
      reordered: sum((c) => c.receipts.reordered),
      duplicates: sum((c) => c.receipts.duplicates),
      lost: figures.lost,
      unexpected: sum((c) => c.receipts.unexpected + c.receipts.stale) + figures.excess,
      acked: acks.acked,
      unacked: acks.unacked,
      ack_errors: acks.ackErrors,
      ack_untracked: acks.untracked,
    },
    delivery_rate: deliveryRate === null ? null : r6(deliveryRate),
    latency_ms: latency,
    latency_from_actual_send_ms: percentilesOf(figures.firstLatencyFromActual),
    delivery_latency_ms: percentilesOf(primary.deliveryHistogram),
    fanout_span_ms: percentilesOf(figures.fanoutSpan),
    latency_histogram_ms: compactHistogram(figures.firstLatency, HISTOGRAM_LE_MS),
    rates: stepRates({
      figures,
      sends: allSends,
      primaryKind: plan.primaryKind,
      window: w,
      steadySeconds: args.steadySeconds,
      stepSeconds: args.stepSeconds,
      joinsPerS: joinsPerSecond,
      rejoinsPerS: rejoinsPerS(joins.rejoins, w.drainEnd - w.rampStart, plan.reconnect !== null),
      ackRequested,
    }),
    server: {
      ...serverFigures(
        samples,
        args.serverBasis ?? declaredBasis(profile.target.instance),
        args.serverSource,
      ),
      ...openFilesField(args.serverSamples, w),
    },
    database: databaseFigures(samples),
    drain: drainBacklog(lastReceipts(collected), w, args.stepSeconds),
    generator,
    errors,
    error_classes: errorClasses,
    extra,
  };
}
