/**
 * Builds a StepResult from what the generator processes collected (and the coordinator's own
 * inserts), the per-second timeline and the server samples of the step's windows. Every
 * figure is measured; missing ones are null (docs/FIGURES.md "Measurement rules"). Each figure
 * is made by one function of its own in this folder (docs/FIGURES.md holds their definitions);
 * this file calls them, sums the processes' plain counts (connections, sends, receipts) and
 * assembles the result. The headline figures are those of the step's primary traffic kind; a step
 * carrying several kinds has each in extra.kinds. A run's coordinator and `rtcap merge` both reach
 * it through shard/step-result.
 */
import type { SendRecord } from '../../measure/aggregate.js';
import { compactHistogram, percentilesOf } from '../../measure/histogram.js';
import type { StepCollected } from '../../load/ipc.js';
import type { Profile } from '../../profile/schema.js';
import { HISTOGRAM_LE_MS, type StepResult } from '../../result/result.js';
import { kindOfStream, type StepPlan, type TrafficKind } from '../../scenarios/types.js';
import { decideVerdict } from '../../model/verdict.js';
import { INCOMPLETE_LABEL } from '../../model/format.js';
import type { SecondRecord } from './timeline.js';
import type { ResourceSample } from '../../monitor/types.js';
import type { GaugeSample } from '../../monitor/gauges.js';
import { declaredBasis, type ServerBasis } from '../../monitor/server-basis.js';
import { ackFigures } from '../../measure/ack-figures.js';
import {
  joinFigures,
  joinOfferedRatio,
  joinsPerS,
  rejoinsPerS,
} from '../../measure/join-figures.js';
import { rampMs } from '../../model/verdict.js';
import type { InsertStats } from '../../load/inserts.js';
import { mergeErrors } from './errors.js';
import {
  deliveryRateOf,
  figuresByKind,
  kindSummary,
  primaryOf,
  type FiguresByKind,
  type KindFigures,
} from './kinds.js';
import { mergeHistograms, pickPercentiles } from './latency.js';
import { membersAt, mergeMemberships, streamInfoOf } from './membership.js';
import {
  offeredByPart,
  offeredInWindow,
  offeredRatio,
  scheduledOfKind,
  sendOfferedRatio,
} from './offered.js';
import {
  deliveredPerS,
  deliveredPerS60sMax,
  drainBacklog,
  lastReceipts,
  sentPerS,
  stepRates,
} from './rates.js';
import {
  databaseFigures,
  generatorFigures,
  openFilesField,
  samplesInWindow,
  serverFigures,
  serverMemoryFields,
} from './resources.js';
import { hostFigures } from './host.js';
import type { HostSample } from '../../monitor/host.js';
import { r3, r6, sumOf } from './round.js';
import { verdictInputs } from './verdict-inputs.js';
import { latencyScope } from './latency-scope.js';
import { scenarioExtra } from './extras.js';
import type { StepContext } from './step-context.js';
import { senderSegmentOf } from '../../load/segment.js';
import { steadySeconds as steadySecondsOf, type StepWindow } from './window.js';

export type { StepWindow } from './window.js';
export type { KindFigures } from './kinds.js';
export type { InsertStats } from '../../load/inserts.js';

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
  /** The server's RSS before any connection (MiB), for server.rss_per_connection_kb. */
  serverIdleRssMb?: number | null;
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
  const { profile, plan, window: w } = args;
  const m = measureStep(args);
  const decision = verdictOf(args, m);
  const reasons = [...decision.reasons];
  if (!args.complete) reasons.unshift(`${INCOMPLETE_LABEL}: figures cover only what ran`);
  const extra = extraOf(args, m);
  const samples = samplesInWindow(args.serverSamples, w);
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
    connections: connectionsOf(args, m),
    messages: messagesOf(args, m),
    delivery_rate: m.deliveryRate === null ? null : r6(m.deliveryRate),
    latency_ms: m.latency,
    latency_from_actual_send_ms: percentilesOf(m.figures.firstLatencyFromActual),
    delivery_latency_ms: percentilesOf(m.primary.deliveryHistogram),
    fanout_span_ms: percentilesOf(m.figures.fanoutSpan),
    latency_histogram_ms: compactHistogram(m.figures.firstLatency, HISTOGRAM_LE_MS),
    rates: stepRates({
      figures: m.figures,
      sends: m.allSends,
      primaryKind: plan.primaryKind,
      window: w,
      steadySeconds: args.steadySeconds,
      stepSeconds: args.stepSeconds,
      joinsPerS: m.joinsPerSecond,
      rejoinsPerS: rejoinsPerS(m.joins.rejoins, w.drainEnd - w.rampStart, plan.reconnect !== null),
      ackRequested: m.ackRequested,
    }),
    server: {
      ...serverFigures(
        samples,
        args.serverBasis ?? declaredBasis(profile.target.instance),
        args.serverSource,
      ),
      ...openFilesField(args.serverSamples, w),
      ...serverMemoryFields(samples, args.serverIdleRssMb ?? null, m.membersAtSteady),
    },
    database: databaseFigures(samples),
    drain: drainBacklog(lastReceipts(args.collected), w, args.stepSeconds),
    generator: m.generator,
    errors: m.errors,
    error_classes: m.errorClasses,
    extra,
  };
}

/** The sum of one plain count over the generator processes. */
function sumCollected(args: StepInputs, f: (c: StepCollected) => number): number {
  return sumOf(args.collected, f);
}

/** The step's figures by traffic kind, from every send (the processes' and the inserts). */
function trafficOf(args: StepInputs) {
  const { plan, collected, window: w } = args;
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
  return { membersAtSteady, allSends, origin, kinds, primary, figures: primary.figures };
}

/**
 * The joins and the offered ratio of each part of the load. Every part of the load is offered
 * load: a generator behind any kind's schedule, or the join schedule, is generator-bound, not
 * only behind the primary kind's.
 */
function offeredOf(args: StepInputs, kinds: FiguresByKind, allSends: SendRecord[]) {
  const { plan, window: w } = args;
  const scheduledJoins = sumCollected(args, (c) => c.connections.scheduledJoins);
  const joins = joinFigures(args.collected);
  const parts: Record<string, number | null> = {};
  for (const kind of Object.keys(kinds) as TrafficKind[]) {
    const own = offeredInWindow(allSends, (stream) => kindOfStream(stream) === kind, w.steadyEnd);
    parts[kind] = sendOfferedRatio(
      scheduledOfKind(kind, plan, args.insertStats?.scheduled ?? 0),
      own,
    );
  }
  parts.joins = joinOfferedRatio(scheduledJoins, joins.behindSchedule);
  return { scheduledJoins, joins, joinsPerSecond: joinsPerS(joins), parts };
}

/** Everything measured in the step that the verdict, the extra figures and the result read. */
function measureStep(args: StepInputs) {
  const { profile, plan, collected, window: w } = args;
  const sum = (f: (c: StepCollected) => number) => sumCollected(args, f);
  const traffic = trafficOf(args);
  const offered = offeredOf(args, traffic.kinds, traffic.allSends);
  const ratio = offeredRatio(Object.values(offered.parts));
  const histograms = mergeHistograms(collected);
  const generator = generatorFigures({
    steadySeconds: args.steadySeconds,
    workers: args.workers,
    lagsP99Ms: collected.map((c) => c.lagP99Ms),
    offeredRatio: ratio,
    offeredByPart: offeredByPart(offered.parts),
    lateJoins: sum((c) => c.connections.lateJoins),
    idleRssMb: args.generatorIdleRssMb ?? null,
    joined: traffic.membersAtSteady,
  });
  if (args.hostSamples) generator.host = hostFigures(args.hostSamples, w);
  return {
    ...traffic,
    ...offered,
    histograms,
    // Once: a histogram's mean walks all its buckets (≈ 25 ms for a ramp's join latencies).
    joinLatency: percentilesOf(histograms.join),
    ...mergeErrors(collected, args.insertStats?.errors),
    joinedInStep: sum((c) => c.connections.joined),
    latency: percentilesOf(traffic.figures.firstLatency),
    deliveryRate: deliveryRateOf(traffic.figures),
    failed: sum((c) => c.connections.failed),
    disconnected: sum((c) => c.connections.disconnected),
    generator,
    ackRequested:
      profile.load.ack &&
      profile.target.dialect === 'supabase' &&
      (plan.broadcasts?.count ?? 0) > 0,
    acks: ackFigures(collected),
    presenceTracks: {
      unanswered: sum((c) => c.presenceTracks?.unanswered ?? 0),
      untracked: sum((c) => c.presenceTracks?.untracked ?? 0),
    },
  };
}

type Measured = ReturnType<typeof measureStep>;

/** The step's verdict from its measured figures, the profile's SLO and generator limits. */
function verdictOf(args: StepInputs, m: Measured) {
  const { profile, plan } = args;
  return decideVerdict(
    verdictInputs({
      kinds: m.kinds,
      deliveryRate: m.deliveryRate,
      latency: m.latency,
      connectionsTarget: plan.connections,
      membersAtSteady: m.membersAtSteady,
      joinedInStep: m.joinedInStep,
      joinLatencyP95Ms: m.joinLatency.p95,
      joinRate: {
        measured_per_s: m.joinsPerSecond,
        offered_per_s: plan.joinRatePerS,
        ramp_ms: rampMs(m.scheduledJoins, plan.joinRatePerS),
      },
      failed: m.failed,
      disconnected: m.disconnected,
      errors: m.errors,
      errorClasses: m.errorClasses,
      generator: m.generator,
      acks: m.ackRequested ? m.acks : null,
      presenceTracks: m.presenceTracks,
      traffic: {
        asked_per_s:
          (plan.broadcasts?.ratePerS ?? 0) +
          (plan.presence?.ratePerS ?? 0) +
          (plan.inserts?.ratePerS ?? 0),
        sent: m.allSends.length,
      },
    }),
    profile.slo,
    profile.generator,
  );
}

/** result.extra: the step's further counts, each kind's figures (several kinds), the scenario's. */
function extraOf(args: StepInputs, m: Measured): Record<string, unknown> {
  const { profile, collected, window: w } = args;
  const sum = (f: (c: StepCollected) => number) => sumCollected(args, f);
  const ctx: StepContext = {
    profile,
    plan: args.plan,
    collected,
    window: w,
    kinds: m.kinds,
    steadySeconds: args.steadySeconds,
    stepSeconds: args.stepSeconds,
    ackLatency: m.histograms.ack,
    commitLatency: m.histograms.commit,
    insertStats: args.insertStats,
    builtin: args.builtin ?? false,
    previous: args.previousSteps ?? [],
    serverGauges: args.serverGauges ?? [],
  };
  return {
    joined_in_step: m.joinedInStep,
    members_at_end: sum((c) => c.connections.joinedAtEnd),
    reconnects: sum((c) => c.connections.reconnects),
    unsent_sends: sum((c) => c.sendStats.unsent),
    messages_never_received: m.figures.messagesUnseen,
    stale_receipts: sum((c) => c.receipts.stale),
    ack_errors: sum((c) => c.acks.errors),
    presence_tracks_unanswered: m.presenceTracks.unanswered,
    presence_tracks_untracked: m.presenceTracks.untracked,
    ack_latency_ms: m.histograms.ack.totalCount
      ? pickPercentiles(percentilesOf(m.histograms.ack))
      : null,
    send_buffer_peak_bytes: Math.max(0, ...collected.map((c) => c.sendBufferPeakBytes ?? 0)),
    offered_sends_in_window: offeredInWindow(
      m.allSends,
      (stream) => kindOfStream(stream) === args.plan.primaryKind,
      w.steadyEnd,
    ),
    drain_ms: Math.round(w.drainEnd - w.steadyEnd),
    ...(m.origin ? { latency_scope: latencyScope(collected, m.figures) } : {}),
    ...(Object.keys(m.kinds).length > 1 ? { kinds: kindsExtra(args, m) } : {}),
    ...scenarioExtra(profile.scenario, ctx),
  };
}

/** extra.kinds: each traffic kind's summary, rates and offered ratio (a step of several kinds). */
function kindsExtra(args: StepInputs, m: Measured) {
  const steadyS = steadySecondsOf(args.window);
  return Object.fromEntries(
    (Object.entries(m.kinds) as Array<[TrafficKind, KindFigures]>).map(([k, v]) => [
      k,
      {
        ...kindSummary(v),
        sent_per_s: sentPerS(m.allSends, k, args.window),
        delivered_per_s: deliveredPerS(k, args.steadySeconds, {
          received: v.figures.received,
          steadyS,
        }),
        delivered_per_s_60s_max: deliveredPerS60sMax(k, args.stepSeconds),
        offered_ratio: m.parts[k] === null || m.parts[k] === undefined ? null : r3(m.parts[k]!),
      },
    ]),
  );
}

/** result.connections: opened, joined, failed and the joins' latency and schedule. */
function connectionsOf(args: StepInputs, m: Measured): StepResult['connections'] {
  const sum = (f: (c: StepCollected) => number) => sumCollected(args, f);
  const firstSteady = args.steadySeconds[0]?.point;
  return {
    target: args.plan.connections,
    opened: firstSteady ? firstSteady.connections_open : sum((c) => c.connections.openAtEnd),
    joined: m.membersAtSteady,
    failed: m.failed,
    disconnected: m.disconnected,
    open_at_end: sum((c) => c.connections.openAtEnd),
    join_latency_ms: m.joinLatency,
    scheduled_joins: m.scheduledJoins,
    first_joins: m.joins.rampJoined,
  };
}

/** result.messages: the primary kind's sends, receipts and acks. */
function messagesOf(args: StepInputs, m: Measured): StepResult['messages'] {
  const sum = (f: (c: StepCollected) => number) => sumCollected(args, f);
  const changes = args.plan.primaryKind === 'changes';
  const { figures, acks } = m;
  return {
    scheduled: changes ? (args.insertStats?.scheduled ?? 0) : sum((c) => c.sendStats.scheduled),
    sent: figures.sent,
    send_failed: figures.sendFailed,
    late: changes ? (args.insertStats?.late ?? 0) : sum((c) => c.sendStats.late),
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
  };
}
