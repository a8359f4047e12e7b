/**
 * A step of two traffic kinds whose true counts are known, for the tests of the step's
 * assembly (figures/step-result, step-measure, step-extra): two members of one topic, a
 * broadcast stream and a presence stream, each message received once 5 ms after it was due.
 */
import type { StepInputs } from '../../src/figures/step-inputs.js';
import { getScenario } from '../../src/scenarios/index.js';
import { fakeCollected, histogramOf } from './step-context.js';
import { profileFrom } from './profiles.js';

const T0 = 1_000_000;
export const W = {
  rampStart: T0,
  rampEnd: T0 + 1000,
  steadyStart: T0 + 1000,
  steadyEnd: T0 + 3000,
  drainEnd: T0 + 4000,
};

/** n sends of one stream, due every `everyMs` from the window start, made `lateMs` after due. */
export function sends(stream: number, n: number, everyMs: number, lateMs = 0) {
  const sched = Float64Array.from({ length: n }, (_, k) => W.steadyStart + k * everyMs);
  return { stream, sched, actual: sched.map((t) => t + lateMs) };
}
/** Every message received once (by one other member), 5 ms after due. */
function receipts(s: { stream: number; sched: Float64Array }) {
  return {
    stream: s.stream,
    count: new Uint32Array(s.sched.length).fill(1),
    first: s.sched.map((t) => t + 5),
    last: s.sched.map((t) => t + 5),
  };
}

export function inputs(b: ReturnType<typeof sends>, p: ReturnType<typeof sends>): StepInputs {
  const profile = profileFrom({
    name: 'k',
    scenario: 'broadcast-public',
    target: { url: 'ws://127.0.0.1:1/socket' },
    load: { steps: [{ connections: 2, send_rate: 10, duration: '2s' }] },
  });
  const base = getScenario('broadcast-public').plan(profile, 0);
  const plan = {
    ...base,
    broadcasts: { ...base.broadcasts!, count: b.sched.length },
    presence: {
      ratePerS: 10,
      count: p.sched.length,
      senderOf: () => ({ conn: 0, stream: p.stream, seq: 0 }),
    },
    streamInfo: () => ({ key: 't', excludeSender: true, sender: 0 }),
  };
  const member = { joinedAtMs: T0, leftAtMs: Infinity };
  const collected = [
    fakeCollected({
      sends: [b, p],
      receipts: {
        streams: [receipts(b), receipts(p)],
        received: 0,
        reordered: 0,
        duplicates: 0,
        unexpected: 0,
        stale: 0,
        deliveryHistogram: histogramOf([]),
        kindHistograms: [],
      },
      membership: { t: [member, member] },
      joinLatencyHistogram: histogramOf([3, 4]),
      connections: { joined: 2, openAtEnd: 2, joinedAtEnd: 2, scheduledJoins: 2 },
      sendStats: {
        scheduled: b.sched.length + p.sched.length,
        sent: b.sched.length + p.sched.length,
      },
    }),
  ];
  return {
    profile,
    plan,
    collected,
    inserts: [],
    insertStats: null,
    window: W,
    steadySeconds: [],
    stepSeconds: [],
    serverSamples: [],
    serverSource: null,
    workers: 1,
    complete: true,
  };
}
