/**
 * StepLifecycle built in the test's process: a ramp opens this process's share of the
 * connections on the join schedule and reports itself done, the sends its plan gives this
 * process are made and recorded, a collection hands over what the step counted, and a new step
 * starts from fresh counts. Connections are opened by a recorder here (the schedule is the
 * subject; connection-events.test.ts opens real ones), so no sender is a member and every send
 * is counted as one that could not be made.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Connection } from '../../src/client/connection.js';
import { ConnectionSet } from '../../src/generator/connection-set.js';
import type { FromWorker } from '../../src/generator/ipc.js';
import { WHOLE } from '../../src/generator/segment.js';
import { StepLifecycle } from '../../src/generator/step-lifecycle.js';
import { nowMs } from '../../src/measure/clock.js';
import { HealthMonitor } from '../../src/measure/health.js';
import { ReceiveLedger } from '../../src/measure/ledger.js';
import { newMemberState } from '../../src/measure/member-state.js';
import { SendLedger } from '../../src/measure/send-ledger.js';
import { streamId } from '../../src/measure/stream-id.js';
import type { Profile } from '../../src/profile/schema.js';
import { liveProfile, until } from './support/live-target.js';

const monitors: HealthMonitor[] = [];
afterEach(() => {
  for (const h of monitors.splice(0)) h.stop();
});

function lifecycle(profile: Profile, mine: (i: number) => boolean = () => true) {
  const posted: FromWorker[] = [];
  const opened: Array<[number, number]> = [];
  const set = new ConnectionSet<Connection>({
    attemptOpened: () => undefined,
    attemptAnswered: () => undefined,
    membershipEnded: () => undefined,
  });
  const ledger = new ReceiveLedger();
  const health = new HealthMonitor();
  monitors.push(health);
  const steps = new StepLifecycle({
    worker: 3,
    segment: WHOLE,
    profile,
    mine,
    set,
    ledger,
    sends: new SendLedger(5),
    health,
    open: (i, dueMs) => opened.push([i, dueMs]),
    post: (m) => posted.push(m),
    stopped: () => false,
  });
  const posts = (type: FromWorker['type']) => posted.filter((m) => m.type === type);
  return { steps, ledger, opened, posts };
}

const url = 'ws://127.0.0.1:9/socket/websocket';

describe('StepLifecycle', () => {
  it('a ramp opens its own connections on the join schedule of all of them, then reports done', async () => {
    const profile = liveProfile(url, [{ connections: 6, send_rate: 1, duration: '1s' }]);
    profile.load.join_rate = 100;
    const t = lifecycle(profile, (i) => i % 2 === 1);
    const startMs = nowMs() + 20;
    t.steps.ramp(0, 0, 6, startMs);
    await until('ramp done', () => t.posts('rampDone').length > 0);
    // Connections 1, 3, 5 at start + i × 10 ms (100 joins/s over every process's connections).
    expect(t.opened).toEqual([1, 3, 5].map((i) => [i, startMs + i * 10]));
    expect(t.posts('rampDone')).toEqual([
      {
        type: 'rampDone',
        worker: 3,
        step: 0,
        joined: 0,
        failed: 0,
        errors: {},
        // What the step's collect reports of its ramp, known at its end: 3 joins scheduled here.
        joins: {
          ramp: { joined: 0, firstReplyMs: null, lastReplyMs: null, behindSchedule: 0 },
          rejoins: 0,
        },
        scheduledJoins: 3,
      },
    ]);
    expect(t.steps.step).toBe(0);
    expect(t.steps.collect().connections).toMatchObject({ scheduledJoins: 3, opened: 0 });
  });

  it("makes the plan's sends and records each; with no member joined none is sent", async () => {
    const profile = liveProfile(url, [{ connections: 2, send_rate: 5, duration: '1s' }]);
    const t = lifecycle(profile);
    t.steps.send(0, nowMs() + 20);
    await until('sends done', () => t.posts('sendDone').length > 0);
    expect(t.posts('sendDone')).toEqual([{ type: 'sendDone', worker: 3, step: 0 }]);
    const c = t.steps.collect();
    expect(c.step).toBe(0);
    expect(c.sendStats).toMatchObject({ scheduled: 5, sent: 0, failed: 5, connectionDown: 0 });
    expect(c.sends.map((s) => s.sched.length)).toEqual([5]);
  });

  it('counts errors in the step and the second; a new step starts from fresh counts', () => {
    const profile = liveProfile(url, [
      { connections: 2, send_rate: 1, duration: '1s' },
      { connections: 1, send_rate: 1, duration: '1s' },
    ]);
    const t = lifecycle(profile);
    t.steps.shrink(0, 2);
    const e = { class: 'server' as const, reason: 'join refused: full' };
    t.steps.countError(e);
    t.steps.countError(e);
    expect(t.steps.takeSecond().errors).toBe(2);
    expect(t.steps.second.errors).toBe(0);
    const first = t.steps.collect();
    expect(first.errors).toEqual({ 'join refused: full': 2 });
    expect(first.errorClasses.server).toBe(2);
    t.steps.shrink(1, 1);
    expect(t.steps.step).toBe(1);
    expect(t.steps.plan?.connections).toBe(1);
    expect(t.steps.collect().errors).toEqual({});
  });

  it('a step decided at run time replaces the profile\u2019s step before it begins', () => {
    const profile = liveProfile(url, [{ connections: 2, send_rate: 1, duration: '1s' }]);
    const t = lifecycle(profile);
    t.steps.define(1, { ...profile.load.steps[0], connections: 7 });
    t.steps.shrink(1, 7);
    expect(t.steps.plan?.connections).toBe(7);
  });

  it('receipts and frames after a collection are counted in the next step, never lost', () => {
    const profile = liveProfile(url, [
      { connections: 2, send_rate: 1, duration: '1s' },
      { connections: 2, send_rate: 1, duration: '1s' },
    ]);
    const t = lifecycle(profile);
    const member = newMemberState();
    member.joinedAtMs = 1;
    const receive = (seq: number) => t.ledger.record(member, streamId(0, 0), seq, 10, 20, 100);
    t.steps.shrink(0, 2);
    receive(0);
    const first = t.steps.collect();
    expect(first.receipts).toMatchObject({ received: 1, stale: 0 });
    // After the collection: a delivery of step 0 still arriving, and a frame rtcap cannot use.
    receive(1);
    t.steps.counters.frames.unknownEvent++;
    t.steps.shrink(1, 2);
    const second = t.steps.collect();
    expect(second.receipts).toMatchObject({ received: 0, stale: 1 });
    expect(second.frames?.unknownEvent).toBe(1);
    expect(first.frames?.unknownEvent).toBe(0);
  });

  it('a repeated collect answers the same; the next ramp reports only its own errors', () => {
    const profile = liveProfile(url, [
      { connections: 2, send_rate: 1, duration: '1s' },
      { connections: 4, send_rate: 1, duration: '1s' },
    ]);
    const t = lifecycle(profile, () => false);
    t.steps.shrink(0, 2);
    t.steps.countError({ class: 'server', reason: 'join refused: full' });
    const first = t.steps.collect();
    expect(t.steps.collect()).toBe(first);
    // A drop after the collection is the next step's, not its ramp's.
    t.steps.countError({ class: 'network', reason: 'dropped' });
    t.steps.ramp(1, 2, 4, nowMs());
    expect(t.posts('rampDone')).toEqual([
      {
        type: 'rampDone',
        worker: 3,
        step: 1,
        joined: 0,
        failed: 0,
        errors: {},
        joins: {
          ramp: { joined: 0, firstReplyMs: null, lastReplyMs: null, behindSchedule: 0 },
          rejoins: 0,
        },
        scheduledJoins: 0,
      },
    ]);
    expect(t.steps.collect().errors).toEqual({ dropped: 1 });
  });
});
