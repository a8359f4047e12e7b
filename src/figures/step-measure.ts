/**
 * Everything measured in a step that its verdict, its extra figures and its result read: each
 * traffic kind's figures from every send, the offered ratio of each part of the load, the joins,
 * latency, errors, acks and the generator's own figures. Each figure comes from its own function
 * in this folder (docs/FIGURES.md); this file gathers them once per step.
 */
import type { SendRecord } from '../measure/aggregate.js';
import { percentilesOf } from '../measure/histogram.js';
import type { StepCollected } from '../generator/ipc.js';
import { kindOfStream, type StepPlan, type TrafficKind } from '../scenarios/types.js';
import { ackFigures } from '../measure/ack-figures.js';
import { joinFigures, joinOfferedRatio, joinsPerS } from '../measure/join-figures.js';
import { senderSegmentOf } from '../generator/segment.js';
import { mergeErrors } from './errors.js';
import { deliveryRateOf, figuresByKind, primaryOf, type FiguresByKind } from './kinds.js';
import { mergeHistograms } from './latency.js';
import { membersAt, mergeMemberships, streamInfoOf } from './membership.js';
import {
  offeredByPart,
  offeredInWindow,
  offeredRatio,
  scheduledOfKind,
  sendOfferedRatio,
} from './offered.js';
import { generatorFigures } from './resources.js';
import { hostFigures } from './host.js';
import { sumCollected, type StepInputs } from './step-inputs.js';
import type { StepWindow } from './window.js';
import { NO_CONNECTION_COULD_JOIN } from '../result/cut-short.js';
import { dueHorizon, dueOfSchedule, withinHorizon } from './cut-horizon.js';

/** The step's figures by traffic kind, from every send (the processes' and the inserts). */
function trafficOf(args: StepInputs) {
  const { plan, window: w } = args;
  const byKey = mergeMemberships(args.collected);
  const membersAtSteady = membersAt(byKey, w.steadyStart);
  const every: SendRecord[] = [...args.collected.flatMap((c) => c.sends), ...args.inserts];
  // A step cut short: the messages due by its horizon (figures/cut-horizon), with theirs.
  const horizon = dueHorizon(args.complete ? null : w.drainEnd);
  const { sends: allSends, collected } =
    horizon === null
      ? { sends: every, collected: args.collected }
      : withinHorizon(every, args.collected, horizon);
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

/** Of a kind's whole schedule in the plan, the events due by `horizonMs`. */
function dueOfKind(kind: TrafficKind, plan: StepPlan, w: StepWindow, horizonMs: number): number {
  const t =
    kind === 'broadcast' ? plan.broadcasts : kind === 'presence' ? plan.presence : plan.inserts;
  return t ? dueOfSchedule(w.steadyStart, t.ratePerS, t.count, horizonMs) : 0;
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
  // A step cut short is judged over the part of its schedule that ran (its sends are those due
  // by the horizon already), never the whole of it: what it had no time to send is not the
  // generator falling behind.
  const horizon = dueHorizon(args.complete ? null : w.drainEnd);
  for (const kind of Object.keys(kinds) as TrafficKind[]) {
    const own = offeredInWindow(allSends, (stream) => kindOfStream(stream) === kind, w.steadyEnd);
    const scheduled = scheduledOfKind(kind, plan, args.insertStats?.scheduled ?? 0);
    parts[kind] = sendOfferedRatio(
      horizon === null ? scheduled : Math.min(scheduled, dueOfKind(kind, plan, w, horizon)),
      own,
    );
  }
  parts.joins = joinOfferedRatio(scheduledJoins, joins.behindSchedule);
  return { scheduledJoins, joins, joinsPerSecond: joinsPerS(joins), parts };
}

/** Everything measured in the step that the verdict, the extra figures and the result read. */
/**
 * Connections open but never joined when the run stopped because no connection could join (a
 * server answering every join with frames rtcap cannot read): the server failed them, each with
 * the errors that say why; 0 for any other step.
 */
function neverJoined(args: StepInputs): number {
  if (!args.cut?.by.startsWith(NO_CONNECTION_COULD_JOIN)) return 0;
  return sumCollected(args, (c) => c.connections.openAtEnd - c.connections.joinedAtEnd);
}

export function measureStep(args: StepInputs) {
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
    failed: sum((c) => c.connections.failed) + neverJoined(args),
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

export type Measured = ReturnType<typeof measureStep>;
