/**
 * result.extra of a step: its further counts, each traffic kind's figures when it carries
 * several, and the scenario's own figures (figures/extras).
 */
import { percentilesOf, pickPercentiles } from '../measure/histogram.js';
import type { StepCollected } from '../generator/ipc.js';
import { kindOfStream, type TrafficKind } from '../scenarios/types.js';
import { kindSummary, type KindFigures } from './kinds.js';
import { offeredInWindow } from './offered.js';
import { deliveredPerS, deliveredPerS60sMax, sentPerS } from './rates.js';
import { r3 } from '../util/round.js';
import { latencyScope } from './latency-scope.js';
import { scenarioExtra } from './extras.js';
import type { StepContext } from './step-context.js';
import { sumCollected, type StepInputs } from './step-inputs.js';
import type { Measured } from './step-measure.js';
import { steadySeconds as steadySecondsOf } from '../measure/steady-seconds.js';

/** result.extra: the step's further counts, each kind's figures (several kinds), the scenario's. */
export function extraOf(args: StepInputs, m: Measured): Record<string, unknown> {
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
