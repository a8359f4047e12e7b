/**
 * A StepContext built from parts, for testing a scenario's `extra()` without sockets: what
 * generator processes would have collected, the per-second timeline and the message figures.
 */
import type { SecondStats, StepCollected } from '../../src/generator/ipc.js';
import { emptyFigures, type MessageFigures } from '../../src/measure/aggregate.js';
import { createHistogram, encodeHistogram, recordMs } from '../../src/measure/histogram.js';
import type { Profile } from '../../src/profile/schema.js';
import type { TimeseriesPoint } from '../../src/result/timeseries-point.js';
import type { StepContext } from '../../src/figures/step-context.js';
import type { SecondRecord } from '../../src/figures/timeline.js';
import type { StepPlan } from '../../src/scenarios/types.js';

type DeepPartialCollected = Partial<Omit<StepCollected, 'connections' | 'sendStats' | 'acks'>> & {
  connections?: Partial<StepCollected['connections']>;
  sendStats?: Partial<StepCollected['sendStats']>;
  acks?: Partial<StepCollected['acks']>;
};

export function histogramOf(valuesMs: number[]): string {
  const h = createHistogram();
  for (const v of valuesMs) recordMs(h, v);
  return encodeHistogram(h);
}

export function fakeCollected(p: DeepPartialCollected = {}, worker = 0): StepCollected {
  const empty = encodeHistogram(createHistogram());
  return {
    type: 'collected',
    worker,
    step: 0,
    receipts: {
      streams: [],
      received: 0,
      reordered: 0,
      duplicates: 0,
      unexpected: 0,
      stale: 0,
      deliveryHistogram: empty,
      kindHistograms: [],
    },
    sends: [],
    membership: {},
    joins: {
      ramp: { joined: 0, firstReplyMs: null, lastReplyMs: null, behindSchedule: 0 },
      rejoins: 0,
    },
    joinLatencyHistogram: empty,
    errors: {},
    errorClasses: { server: 0, network: 0, generator: 0, protocol: 0 },
    ackLatencyHistogram: empty,
    presenceReplies: { ok: 0, errors: 0 },
    commitLatencyHistogram: empty,
    sendBufferPeakBytes: 0,
    lagP99Ms: null,
    ...p,
    connections: {
      opened: 0,
      joined: 0,
      failed: 0,
      disconnected: 0,
      openAtEnd: 0,
      joinedAtEnd: 0,
      lateJoins: 0,
      scheduledJoins: 0,
      reconnects: 0,
      subscribed: 0,
      ...p.connections,
    },
    sendStats: { scheduled: 0, sent: 0, failed: 0, late: 0, unsent: 0, ...p.sendStats },
    acks: { ok: 0, errors: 0, unacked: 0, untracked: 0, ...p.acks },
  };
}

/** One second of the timeline: successful joins and errors by reason (one worker). */
export function fakeSecond(
  t: number,
  joins: number,
  errorReasons: Record<string, number> = {},
): SecondRecord {
  const point = {
    t,
    joins_per_s: joins,
    errors: Object.values(errorReasons).reduce((a, b) => a + b, 0),
  } as TimeseriesPoint;
  const worker = { type: 'second', worker: 0, t, errorReasons } as unknown as SecondStats;
  return { point, workers: [worker], server: null };
}

export function fakeFigures(p: Partial<MessageFigures> = {}): MessageFigures {
  return { ...emptyFigures(), ...p };
}

export function fakeContext(args: {
  profile: Profile;
  plan: StepPlan;
  collected?: StepCollected[];
  figures?: Partial<MessageFigures>;
  stepSeconds?: SecondRecord[];
  steadySeconds?: SecondRecord[];
  ackLatencyMs?: number[];
  steadyMs?: number;
  builtin?: boolean;
}): StepContext {
  const ack = createHistogram();
  for (const v of args.ackLatencyMs ?? []) recordMs(ack, v);
  const steady = args.steadyMs ?? args.plan.durationMs;
  return {
    profile: args.profile,
    plan: args.plan,
    collected: args.collected ?? [fakeCollected()],
    window: {
      rampStart: 0,
      rampEnd: 1000,
      steadyStart: 1000,
      steadyEnd: 1000 + steady,
      drainEnd: 2000 + steady,
    },
    kinds: {
      broadcast: { figures: fakeFigures(args.figures), deliveryHistogram: createHistogram() },
    },
    steadySeconds: args.steadySeconds ?? [],
    stepSeconds: args.stepSeconds ?? [],
    ackLatency: ack,
    commitLatency: createHistogram(),
    insertStats: null,
    builtin: args.builtin ?? true,
    previous: [],
    serverGauges: [],
  };
}
