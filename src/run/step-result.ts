/**
 * Builds a StepResult from what the generator processes collected (and the coordinator's own
 * inserts), the per-second timeline and the server samples of the step's windows. Every
 * figure is measured; missing ones are null (DESIGN.md). The headline figures are those of
 * the step's primary traffic kind; a step carrying several kinds has each in extra.kinds.
 */
import { aggregateMessages, emptyFigures, type MessageFigures, type ReceiptRecord, type SendRecord, type StreamInfo } from '../measure/aggregate.js';
import { compactHistogram, createHistogram, decodeHistogram, percentilesOf, type Histogram } from '../measure/histogram.js';
import { Membership, type MemberInterval } from '../measure/membership.js';
import type { StepCollected } from '../load/ipc.js';
import type { Profile } from '../profile/schema.js';
import { HISTOGRAM_LE_MS, type ErrorClass, type Percentiles, type StepResult } from '../report/result.js';
import { kindOfStream, TRAFFIC_KINDS, type StepPlan, type TrafficKind } from '../scenarios/types.js';
import { getScenario } from '../scenarios/index.js';
import { decideVerdict } from '../model/verdict.js';
import type { SecondRecord } from './timeline.js';
import type { ResourceSample } from '../monitor/types.js';
import type { GaugeSample } from '../monitor/gauges.js';
import { ackedPerS, ackFigures } from '../measure/ack-figures.js';
import { joinFigures, joinOfferedRatio, joinsPerS, rejoinsPerS } from '../measure/join-figures.js';
import { OFFERED_GRACE_MS } from '../load/schedule.js';
import { rampMs } from '../model/verdict.js';

export interface StepWindow {
  rampStart: number;
  rampEnd: number;
  steadyStart: number;
  steadyEnd: number;
  drainEnd: number;
}

const r1 = (v: number) => Math.round(v * 10) / 10;
const r3 = (v: number) => Math.round(v * 1000) / 1000;
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
const max = (xs: number[]) => (xs.length ? Math.max(...xs) : null);

export interface KindFigures {
  figures: MessageFigures;
  /** Every receipt's latency for this kind. */
  deliveryHistogram: Histogram;
}

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
  /** The target is the built-in server rtcap started, so its tenant config is profile.target.server.config. */
  builtin: boolean;
  /** The run's earlier steps (mixed: each component's solo step). */
  previous: readonly StepResult[];
  /** Server gauges scraped once a second during the run (monitor/gauges), e.g. the CDC poller's. */
  serverGauges: readonly GaugeSample[];
}

export interface InsertStats {
  scheduled: number;
  sent: number;
  failed: number;
  late: number;
  errors: Record<string, number>;
}

export function buildStepResult(args: {
  profile: Profile;
  plan: StepPlan;
  collected: StepCollected[];
  /** Rows the coordinator inserted (Postgres Changes). */
  inserts: SendRecord[];
  insertStats: InsertStats | null;
  window: StepWindow;
  steadySeconds: SecondRecord[];
  stepSeconds: SecondRecord[];
  serverSamples: ResourceSample[];
  serverSource: string | null;
  workers: number;
  complete: boolean;
  builtin?: boolean;
  previousSteps?: readonly StepResult[];
  serverGauges?: readonly GaugeSample[];
}): StepResult {
  const { profile, plan, collected, window: w } = args;

  // Memberships by key (topic, or changes:<group>) across processes.
  const byKey = new Map<string, MemberInterval[]>();
  for (const c of collected) {
    for (const [key, list] of Object.entries(c.membership)) {
      const all = byKey.get(key);
      if (all) all.push(...list);
      else byKey.set(key, [...list]);
    }
  }
  const memberships = new Map<string, Membership>();
  const membershipOf = (key: string) => {
    let m = memberships.get(key);
    if (!m) memberships.set(key, (m = new Membership(byKey.get(key) ?? [])));
    return m;
  };
  const info = (stream: number): StreamInfo => {
    const s = plan.streamInfo(stream);
    return { membership: membershipOf(s.key), self: !s.excludeSender };
  };

  const allSends: SendRecord[] = [...collected.flatMap((c) => c.sends), ...args.inserts];
  const kinds: Partial<Record<TrafficKind, KindFigures>> = {};
  for (const [ki, kind] of TRAFFIC_KINDS.entries()) {
    const sends = allSends.filter((s) => kindOfStream(s.stream) === kind);
    if (sends.length === 0 && plan.primaryKind !== kind) continue;
    const receipts: ReceiptRecord[][] = collected.map((c) => c.receipts.streams.filter((r) => kindOfStream(r.stream) === kind));
    const deliveryHistogram = createHistogram();
    for (const c of collected) if (c.receipts.kindHistograms?.[ki]) deliveryHistogram.add(decodeHistogram(c.receipts.kindHistograms[ki]));
    kinds[kind] = { figures: aggregateMessages(sends, receipts, info), deliveryHistogram };
  }
  const primary = kinds[plan.primaryKind] ?? { figures: emptyFigures(), deliveryHistogram: createHistogram() };
  const figures = primary.figures;

  const sum = (f: (c: StepCollected) => number) => collected.reduce((a, c) => a + f(c), 0);
  const isPrimary = (stream: number) => kindOfStream(stream) === plan.primaryKind;
  const scheduled = plan.primaryKind === 'changes' ? (args.insertStats?.scheduled ?? 0) : sum((c) => c.sendStats.scheduled);
  const duplicates = sum((c) => c.receipts.duplicates);
  const reordered = sum((c) => c.receipts.reordered);
  const unexpected = sum((c) => c.receipts.unexpected + c.receipts.stale) + figures.excess;

  // Offered load is what the generator attempted on time: a send that failed because the
  // server had closed the socket was offered all the same (and is counted as send_failed).
  let offeredInWindow = 0;
  for (const s of allSends) {
    if (!isPrimary(s.stream)) continue;
    for (const a of s.actual) if (Number.isNaN(a) || a <= w.steadyEnd + OFFERED_GRACE_MS) offeredInWindow++;
  }
  const scheduledJoins = sum((c) => c.connections.scheduledJoins);
  const lateJoins = sum((c) => c.connections.lateJoins);
  const joins = joinFigures(collected);
  // Joins are offered load too: a generator behind its join schedule is generator-bound.
  const offeredRatio = lowest([scheduled > 0 ? offeredInWindow / scheduled : null, joinOfferedRatio(scheduledJoins, joins.behindSchedule)]);
  const joinsPerSecond = joinsPerS(joins);

  const joinHist = createHistogram();
  const ackHist = createHistogram();
  const commitHist = createHistogram();
  for (const c of collected) {
    joinHist.add(decodeHistogram(c.joinLatencyHistogram));
    if (c.ackLatencyHistogram) ackHist.add(decodeHistogram(c.ackLatencyHistogram));
    if (c.commitLatencyHistogram) commitHist.add(decodeHistogram(c.commitLatencyHistogram));
  }

  const errors: Record<string, number> = {};
  const errorClasses: Record<ErrorClass, number> = { server: 0, network: 0, generator: 0, protocol: 0 };
  for (const c of collected) {
    for (const [k, v] of Object.entries(c.errors)) errors[k] = (errors[k] ?? 0) + v;
    for (const k of Object.keys(errorClasses) as ErrorClass[]) errorClasses[k] += c.errorClasses[k];
  }
  for (const [k, v] of Object.entries(args.insertStats?.errors ?? {})) {
    errors[k] = (errors[k] ?? 0) + v;
    errorClasses.server += v;
  }

  const steadyS = Math.max(0.001, (w.steadyEnd - w.steadyStart) / 1000);
  const steadyDelivered = args.steadySeconds.map((s) => s.point.delivered_per_s);
  const steadyBytes = args.steadySeconds.map((s) => s.workers.reduce((a, x) => a + x.bytes, 0));
  const joinedInStep = sum((c) => c.connections.joined);

  // Members during the measurement: joined by the start of the steady window and not gone.
  let membersAtSteady = 0;
  for (const [key, list] of byKey) {
    if (key.startsWith('changes:')) continue;
    for (const i of list) if (i.joinedAtMs <= w.steadyStart && i.leftAtMs > w.steadyStart) membersAtSteady++;
  }
  const firstSteady = args.steadySeconds[0]?.point;

  const samples = args.serverSamples.filter((s) => s.t > w.steadyStart && s.t <= w.steadyEnd + 1000);
  const cpuCores = samples.map((s) => s.cpuCores).filter((v): v is number => v !== null);
  const rss = samples.map((s) => s.rssMb).filter((v): v is number => v !== null);
  const dbCpu = samples.map((s) => s.dbCpuCores).filter((v): v is number => v !== null);
  const dbRss = samples.map((s) => s.dbRssMb).filter((v): v is number => v !== null);
  const vcpus = profile.target.instance.vcpus;
  const memMb = profile.target.instance.memory_mb;
  const cpuMean = mean(cpuCores);
  const rssMean = mean(rss);

  const perWorkerCpu: number[] = [];
  for (let wi = 0; wi < args.workers; wi++) {
    const xs = args.steadySeconds.map((s) => s.workers.find((x) => x.worker === wi)?.health.cpuPct).filter((v): v is number => v !== undefined);
    const m = mean(xs);
    if (m !== null) perWorkerCpu.push(m);
  }
  const lags = collected.map((c) => c.lagP99Ms).filter((v): v is number => v !== null);
  const genRss = args.steadySeconds.flatMap((s) => s.workers.map((x) => x.health.rssMb));

  const latency = percentilesOf(figures.firstLatency);
  const deliveryRate = figures.expected > 0 ? figures.received / figures.expected : null;
  const failed = sum((c) => c.connections.failed);
  const disconnected = sum((c) => c.connections.disconnected);
  const generator = {
    cpu_pct: perWorkerCpu.length ? r1(Math.max(...perWorkerCpu)) : null,
    event_loop_lag_p99_ms: lags.length ? r1(Math.max(...lags)) : null,
    offered_ratio: offeredRatio === null ? null : r3(offeredRatio),
    late_joins: lateJoins,
    rss_mb: genRss.length ? r1(Math.max(...genRss)) : null,
    workers: args.workers,
  };
  // Every kind the step carried must be delivered: a mixed step that lost presence diffs is
  // broken even when its headline kind (Postgres Changes) arrived in full.
  const ackRequested = profile.load.ack && profile.target.dialect === 'supabase' && (plan.broadcasts?.count ?? 0) > 0;
  const acks = ackFigures(collected);
  const kindList = Object.values(kinds).filter((k): k is KindFigures => k !== undefined);
  const lostAllKinds = kindList.reduce((a, k) => a + k.figures.lost, 0);
  const worstRate = kindList
    .map((k) => (k.figures.expected > 0 ? k.figures.received / k.figures.expected : null))
    .reduce<number | null>((a, r) => (r === null ? a : a === null ? r : Math.min(a, r)), null);
  const decision = decideVerdict(
    {
      delivery_rate: worstRate ?? deliveryRate,
      latency_p95_ms: latency.p95,
      latency_p99_ms: latency.p99,
      // A step measured with fewer members than it asked for is not the load it claims, even
      // when the missing ones failed in an earlier step (failures are not retried).
      connections_failed: Math.max(failed, plan.connections - membersAtSteady),
      connections_joined: Math.max(joinedInStep, membersAtSteady),
      connections_target: plan.connections,
      join_latency_p95_ms: percentilesOf(joinHist).p95,
      join_rate: { measured_per_s: joinsPerSecond, offered_per_s: plan.joinRatePerS, ramp_ms: rampMs(scheduledJoins, plan.joinRatePerS) },
      connections_disconnected: disconnected,
      messages_lost: lostAllKinds,
      error_classes: errorClasses,
      errors,
      generator_cpu_pct: generator.cpu_pct,
      generator_lag_p99_ms: generator.event_loop_lag_p99_ms,
      generator_offered_ratio: generator.offered_ratio,
      acks: ackRequested ? { unacked: acks.unacked, errors: acks.ackErrors, untracked: acks.untracked } : null,
    },
    profile.slo,
    profile.generator,
  );
  const reasons = [...decision.reasons];
  if (!args.complete) reasons.unshift('step cut short: figures cover only what ran');

  const ctx: StepContext = {
    profile,
    plan,
    collected,
    window: w,
    kinds,
    steadySeconds: args.steadySeconds,
    stepSeconds: args.stepSeconds,
    ackLatency: ackHist,
    commitLatency: commitHist,
    insertStats: args.insertStats,
    builtin: args.builtin ?? false,
    previous: args.previousSteps ?? [],
    serverGauges: args.serverGauges ?? [],
  };
  const kindCount = Object.keys(kinds).length;
  const extra: Record<string, unknown> = {
    joined_in_step: joinedInStep,
    members_at_end: sum((c) => c.connections.joinedAtEnd),
    reconnects: sum((c) => c.connections.reconnects),
    unsent_sends: sum((c) => c.sendStats.unsent),
    messages_never_received: figures.messagesUnseen,
    stale_receipts: sum((c) => c.receipts.stale),
    ack_errors: sum((c) => c.acks.errors),
    ack_latency_ms: ackHist.totalCount ? pick(percentilesOf(ackHist)) : null,
    send_buffer_peak_bytes: Math.max(0, ...collected.map((c) => c.sendBufferPeakBytes ?? 0)),
    offered_sends_in_window: offeredInWindow,
    drain_ms: Math.round(w.drainEnd - w.steadyEnd),
    ...(kindCount > 1 ? { kinds: Object.fromEntries(Object.entries(kinds).map(([k, v]) => [k, kindSummary(v!, steadyS)])) } : {}),
    ...(getScenario(profile.scenario).extra?.(ctx) ?? {}),
  };

  const delivered60 = args.stepSeconds.map((s) => s.point.delivered_per_s_60s);
  return {
    index: plan.step + 1,
    label: plan.label,
    params: plan.params,
    verdict: decision.verdict,
    verdict_reasons: reasons,
    window: { ramp_start: w.rampStart, steady_start: w.steadyStart, steady_end: w.steadyEnd, drain_end: w.drainEnd },
    complete: args.complete,
    connections: {
      target: plan.connections,
      opened: firstSteady ? firstSteady.connections_open : sum((c) => c.connections.openAtEnd),
      joined: membersAtSteady,
      failed,
      disconnected,
      open_at_end: sum((c) => c.connections.openAtEnd),
      join_latency_ms: percentilesOf(joinHist),
      scheduled_joins: scheduledJoins,
      first_joins: joins.rampJoined,
    },
    messages: {
      scheduled,
      sent: figures.sent,
      send_failed: figures.sendFailed,
      late: plan.primaryKind === 'changes' ? (args.insertStats?.late ?? 0) : sum((c) => c.sendStats.late),
      expected: figures.expected,
      received: figures.received,
      reordered,
      duplicates,
      lost: figures.lost,
      unexpected,
      acked: acks.acked,
      unacked: acks.unacked,
      ack_errors: acks.ackErrors,
      ack_untracked: acks.untracked,
    },
    delivery_rate: deliveryRate === null ? null : Math.round(deliveryRate * 1e6) / 1e6,
    latency_ms: latency,
    latency_from_actual_send_ms: percentilesOf(figures.firstLatencyFromActual),
    delivery_latency_ms: percentilesOf(primary.deliveryHistogram),
    fanout_span_ms: percentilesOf(figures.fanoutSpan),
    latency_histogram_ms: compactHistogram(figures.firstLatency, HISTOGRAM_LE_MS),
    rates: {
      sent_per_s: r1(figures.sent / steadyS),
      acked_per_s: ackedPerS(ackRequested, args.steadySeconds),
      delivered_per_s: plan.primaryKind === 'broadcast' && steadyDelivered.length ? r1(mean(steadyDelivered)!) : r1(figures.received / steadyS),
      joins_per_s: joinsPerSecond,
      rejoins_per_s: rejoinsPerS(joins.rejoins, w.drainEnd - w.rampStart, plan.reconnect !== null),
      delivered_per_s_60s_max: max(delivered60),
      egress_mib_per_s: steadyBytes.length ? r3(mean(steadyBytes)! / 1048576) : null,
    },
    server: {
      cpu_pct: cpuMean === null ? null : r1((cpuMean / vcpus) * 100),
      cpu_pct_max: cpuCores.length ? r1((Math.max(...cpuCores) / vcpus) * 100) : null,
      mem_pct: rssMean === null ? null : r1((rssMean / memMb) * 100),
      rss_mb: rssMean === null ? null : r1(rssMean),
      rss_mb_max: rss.length ? r1(Math.max(...rss)) : null,
      source: cpuCores.length || rss.length ? args.serverSource : null,
    },
    database: dbCpu.length || dbRss.length ? { cpu_pct: dbCpu.length ? r1(mean(dbCpu)! * 100) : null, rss_mb: dbRss.length ? r1(mean(dbRss)!) : null } : null,
    generator,
    errors,
    error_classes: errorClasses,
    extra,
  };
}

/** The lowest of the ratios present; null when none is. */
function lowest(xs: Array<number | null>): number | null {
  const present = xs.filter((x): x is number => x !== null);
  return present.length ? Math.min(...present) : null;
}

function pick(p: Percentiles): { p50: number | null; p95: number | null; p99: number | null } {
  return { p50: p.p50, p95: p.p95, p99: p.p99 };
}

function kindSummary(k: KindFigures, steadyS: number) {
  const f = k.figures;
  return {
    sent: f.sent,
    expected: f.expected,
    received: f.received,
    lost: f.lost,
    delivery_rate: f.expected > 0 ? Math.round((f.received / f.expected) * 1e6) / 1e6 : null,
    delivered_per_s: r1(f.received / steadyS),
    latency_ms: pick(percentilesOf(f.firstLatency)),
    delivery_latency_ms: pick(percentilesOf(k.deliveryHistogram)),
  };
}
