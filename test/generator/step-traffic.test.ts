import { describe, expect, it } from 'vitest';
import type { Connection } from '../../src/client/connection.js';
import type { SendLedger } from '../../src/measure/send-ledger.js';
import type { ConnectionTraffic, StepPlan } from '../../src/scenarios/types.js';
import { ConnectionSet, type ConnMeta } from '../../src/generator/connection-set.js';
import type { StepSends } from '../../src/generator/step-sends.js';
import { stepTrafficRun, type StepTrafficParts } from '../../src/generator/step-traffic.js';
import { FakeConnection } from './support/fake-connection.js';

const traffic = (count: number): ConnectionTraffic => ({
  ratePerS: 10,
  count,
  senderOf: (k) => ({ conn: k, stream: 1, seq: k }),
});

function meta(topic: string): ConnMeta {
  const base = { topic, changesKey: null, scheduledMs: 0, leftAtMs: Infinity, step: 0 };
  return { ...base, token: null, userToken: null, attempt: 0 };
}

/** A process holding connections 0 (joined, topic a) and 1 (open, not joined, topic b). */
function parts(plan: Partial<StepPlan>, over: Partial<StepTrafficParts> = {}) {
  const set = new ConnectionSet<FakeConnection>({
    attemptOpened: () => undefined,
    attemptAnswered: () => undefined,
    membershipEnded: () => undefined,
  });
  const joined = new FakeConnection(0);
  joined.member.joinedAtMs = 5;
  set.add(joined, meta('a'));
  set.add(new FakeConnection(1), meta('b'));
  const made: Array<{ topic: string; step: number; tag: string; seq: number }> = [];
  const recorded: Array<{ seq: number; actual: number }> = [];
  const stepSends = {
    send: (_c: unknown, topic: string, step: number, tag: string, _s: number, seq: number) => {
      made.push({ topic, step, tag, seq });
      return true;
    },
  };
  const sends = {
    record: (_stream: number, seq: number, _due: number, actual: number) =>
      recorded.push({ seq, actual }),
  };
  const p: StepTrafficParts = {
    plan: { durationMs: 2_000, ...plan } as StepPlan,
    startMs: 100,
    set: set as unknown as ConnectionSet<Connection>,
    stepSends: stepSends as unknown as StepSends,
    sends: sends as unknown as SendLedger,
    stats: { scheduled: 0, unsent: 0, connectionDown: 0 },
    mine: () => true,
    currentStep: () => 3,
    cancelled: () => false,
    done: () => undefined,
    ...over,
  };
  return { run: stepTrafficRun(p), made, recorded, set, stats: p.stats };
}

describe("a step's send phase on a process's connections", () => {
  it('runs a loop for each kind the plan carries, broadcasts first', () => {
    const both = parts({ broadcasts: traffic(4), presence: traffic(2) }).run;
    expect(both.loops.map((l) => [l.tag, l.traffic.count])).toEqual([
      ['broadcast', 4],
      ['presence', 2],
    ]);
    expect(both.durationMs).toBe(2_000);
    expect(both.startMs).toBe(100);
    expect(parts({}).run.loops).toEqual([]);
  });

  it("sends from a joined connection on its topic in the process's current step", () => {
    const { run, made, recorded } = parts({ broadcasts: traffic(1) });
    expect(run.send('broadcast', 0, 1, 7, 150)).toBe(true);
    expect(made).toEqual([{ topic: 'a', step: 3, tag: 'broadcast', seq: 7 }]);
    expect(recorded).toHaveLength(1);
    expect(recorded[0].seq).toBe(7);
    expect(Number.isFinite(recorded[0].actual)).toBe(true);
  });

  it('records a send it could not make (not joined, or not held) with no actual time', () => {
    const { run, made, recorded } = parts({ broadcasts: traffic(1) });
    expect(run.send('broadcast', 1, 1, 8, 150)).toBe(false);
    expect(run.send('presence', 9, 1, 9, 150)).toBe(false);
    expect(made).toEqual([]);
    expect(recorded.map((r) => [r.seq, r.actual])).toEqual([
      [8, NaN],
      [9, NaN],
    ]);
  });

  it('a sender the server closed in an earlier step is down, not a crash, once the set forgot it', () => {
    const { run, made, recorded, set, stats } = parts({ broadcasts: traffic(1) });
    const sender = set.byIndex.get(0)!;
    // Closed by the server in step 0; reported at the end of steps 0 and 1, then forgotten.
    set.endMembership(sender, true);
    sender.state = 'closed';
    set.endOfStep(0);
    set.endOfStep(1);
    expect(set.meta.has(sender)).toBe(false);
    expect(set.byIndex.get(0)).toBe(sender);
    expect(run.send('broadcast', 0, 1, 10, 150)).toBe(false);
    expect(made).toEqual([]);
    expect(recorded.map((r) => [r.seq, r.actual])).toEqual([[10, NaN]]);
    expect(stats.connectionDown).toBe(1);
  });
});
