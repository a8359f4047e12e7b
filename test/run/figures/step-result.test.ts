/**
 * buildStepResult against collected data whose true counts are known (no sockets): the
 * figures it assembles from run/figures and the verdict they lead to.
 */
import { describe, expect, it } from 'vitest';
import { buildStepResult, type StepInputs } from '../../../src/run/figures/step-result.js';
import { getScenario } from '../../../src/scenarios/index.js';
import { kindStream } from '../../../src/scenarios/types.js';
import { fakeCollected, histogramOf } from '../../support/step-context.js';
import { profileFrom } from '../../support/profiles.js';

const T0 = 1_000_000;
const W = {
  rampStart: T0,
  rampEnd: T0 + 1000,
  steadyStart: T0 + 1000,
  steadyEnd: T0 + 3000,
  drainEnd: T0 + 4000,
};

/** n sends of one stream, due every `everyMs` from the window start, made `lateMs` after due. */
function sends(stream: number, n: number, everyMs: number, lateMs = 0) {
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

function inputs(b: ReturnType<typeof sends>, p: ReturnType<typeof sends>): StepInputs {
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

describe('buildStepResult', () => {
  it('a step whose secondary kind fell behind is generator-bound and names that kind', () => {
    const b = sends(kindStream('broadcast', 0), 20, 100);
    // Presence: 20 due over the window, every one made 2.5 s late, so the last 14 after the
    // window's end + 1 s.
    const p = sends(kindStream('presence', 0), 20, 100, 2500);
    const step = buildStepResult(inputs(b, p));
    expect(step.messages).toMatchObject({ sent: 20, expected: 20, received: 20, lost: 0 });
    expect(step.generator.offered_by_part).toEqual({ broadcast: 1, presence: 0.3, joins: 1 });
    expect(step.generator.offered_ratio).toBe(0.3);
    expect(step.verdict).toBe('generator-bound');
    expect(step.verdict_reasons[0]).toContain('behind: presence 30.00%');
  });

  it('with every kind on schedule the same step is stable', () => {
    const step = buildStepResult(
      inputs(sends(kindStream('broadcast', 0), 20, 100), sends(kindStream('presence', 0), 20, 100)),
    );
    expect(step.generator.offered_by_part).toEqual({ broadcast: 1, presence: 1, joins: 1 });
    expect(step.verdict).toBe('stable');
  });
});
