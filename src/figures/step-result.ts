/**
 * Builds a StepResult from what the generator processes collected (and the coordinator's own
 * inserts), the per-second timeline and the server samples of the step's windows. Every
 * figure is measured; missing ones are null (docs/FIGURES.md "Measurement rules"). Each figure
 * is made by one function of its own in this folder (docs/FIGURES.md holds their definitions);
 * step-measure gathers them once per step and step-extra makes result.extra; this file decides
 * the verdict, sums the processes' plain counts (connections, sends, receipts) and assembles the
 * result. The headline figures are those of the step's primary traffic kind; a step carrying
 * several kinds has each in extra.kinds. A run's coordinator and `rtcap merge` both reach it
 * through shard/step-result.
 */
import { compactHistogram, percentilesOf } from '../measure/histogram.js';
import type { StepCollected } from '../generator/ipc.js';
import { HISTOGRAM_LE_MS, type StepResult } from '../result/result.js';
import { decideVerdict } from '../model/verdict.js';
import { GENERATOR_ERRNO } from '../model/verdict-generator.js';
import { rampMs } from '../model/verdict-from-step.js';
import type { VerdictDecision } from '../model/verdict-input.js';
import { fmtInt, incompleteLabel } from '../model/format.js';
import { declaredBasis } from '../monitor/server-basis.js';
import { rejoinsPerS } from '../measure/join-figures.js';
import { STOPPED_EARLY } from '../result/cut-short.js';
import { drainBacklog, lastReceipts, stepRates } from './rates.js';
import {
  databaseFigures,
  openFilesField,
  samplesInWindow,
  serverFigures,
  serverMemoryFields,
} from './resources.js';
import { r6 } from '../util/round.js';
import { verdictInputs } from './verdict-inputs.js';
import { extraOf } from './step-extra.js';
import { sumCollected, type StepInputs } from './step-inputs.js';
import { measureStep, type Measured } from './step-measure.js';
import { reconnectGapOf, sendsWhileDown } from './reconnect-gap.js';
import { stepFrames } from './frames.js';
import { partlyAnsweredStep, unansweredStep } from './unanswered-step.js';
import { withLimitNamed } from './named-limit.js';

export function buildStepResult(args: StepInputs): StepResult {
  const { profile, plan, window: w } = args;
  const m = measureStep(args);
  const decision = notAtItsLoad(args, m, verdictOf(args, m));
  const reasons = [...decision.reasons];
  if (!args.complete) reasons.unshift(`${incompleteLabel(args.cut)}: figures cover only what ran`);
  const extra = extraOf(args, m);
  const samples = samplesInWindow(args.serverSamples, w);
  const step: StepResult = {
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
    ...(args.cut && !args.complete ? { cut_short: args.cut } : {}),
    connections: connectionsOf(args, m),
    messages: messagesOf(args, m),
    frames: stepFrames(args.collected),
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
  // Processes that never answered the collect measured nothing that reached the coordinator but
  // their per-second lines: the step says what those said.
  if (args.cut && !args.cut.collected) return unansweredStep(step, args);
  // Some answered, some did not: the step is what those that answered reported.
  if (args.cut?.unanswered?.length) return partlyAnsweredStep(step, args);
  // A limit of this machine rtcap measured (the server's open files, a memory cgroup tighter than
  // the declared instance) comes first, as its capacity row and the live line name it.
  return withLimitNamed(step, {
    builtin: !profile.target.url,
    instance_memory_mb: profile.target.instance.memory_mb,
  });
}

/** Whether the step was cut short in its ramp or warm-up, before any steady second. */
function beforeSteady(args: StepInputs): boolean {
  return !args.complete && (args.cut?.phase === 'ramp' || args.cut?.phase === 'warmup');
}

/**
 * A step cut short before its steady window never carried its load: what would have been stable,
 * degraded (a join rate over a ramp the cut ended) or generator-bound (a stall as the run
 * stopped) is inconclusive, saying how far the ramp got; those reasons follow as "also:".
 * Failures found on the way still break it, and the generator's own OS limits still bind it. A
 * step a search ended with its whole ramp (STOPPED_EARLY: its ramp already kept it from being
 * stable) is judged on that ramp as measured.
 */
function notAtItsLoad(args: StepInputs, m: Measured, d: VerdictDecision): VerdictDecision {
  if (!beforeSteady(args) || d.verdict === 'broken' || d.verdict === 'inconclusive') return d;
  if (args.cut?.by.startsWith(STOPPED_EARLY)) return d;
  const ownLimits =
    (m.errorClasses.generator ?? 0) > 0 ||
    Object.keys(m.errors).some((e) => GENERATOR_ERRNO.test(e));
  if (d.verdict === 'generator-bound' && ownLimits) return d;
  const also = (r: string) => (d.verdict === 'stable' || r.startsWith('also:') ? r : `also: ${r}`);
  const open = sumCollected(args, (c) => c.connections.openAtEnd - c.connections.joinedAtEnd);
  const pending = open > 0 ? `, ${fmtInt(open)} open and not answered yet` : '';
  return {
    verdict: 'inconclusive',
    reasons: [
      `not measured at its load: ${fmtInt(m.membersAtSteady)} of ${fmtInt(args.plan.connections)} connections joined before the cut${pending}`,
      ...d.reasons.map(also),
    ],
  };
}

/** The step's verdict from its measured figures, the profile's SLO and generator limits. */
function verdictOf(args: StepInputs, m: Measured) {
  const { profile, plan } = args;
  return decideVerdict(
    verdictInputs({
      kinds: m.kinds,
      deliveryRate: m.deliveryRate,
      latency: m.latency,
      connectionsTarget: plan.connections,
      // A ramp cut short never reached the connections it did not join: only those that
      // failed failed.
      rampCutShort: !args.complete && args.cut?.phase === 'ramp',
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
      // A step cut short before its steady window asked for no traffic that could have been sent.
      traffic: beforeSteady(args)
        ? null
        : {
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
    reconnect: reconnectGapOf(args.collected, args.plan.reconnect !== null),
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
    not_sent_connection_down: sendsWhileDown(args.collected) || undefined,
    late: changes ? (args.insertStats?.late ?? 0) : sum((c) => c.sendStats.late),
    expected: figures.expected,
    received: figures.received,
    reordered: sum((c) => c.receipts.reordered),
    duplicates: sum((c) => c.receipts.duplicates),
    lost: figures.lost,
    not_delivered_connection_down: figures.notDeliveredConnectionDown || undefined,
    unexpected: sum((c) => c.receipts.unexpected + c.receipts.stale) + figures.excess,
    acked: acks.acked,
    unacked: acks.unacked,
    ack_errors: acks.ackErrors,
    ack_untracked: acks.untracked,
  };
}
