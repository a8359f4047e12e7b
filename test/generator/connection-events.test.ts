/**
 * ConnectionEvents built in the test's process, its connections real WebSockets to a test server
 * on loopback whose behaviour is known: a connection opens, joins and is counted; a stamped
 * delivery goes into the ledger and a frame rtcap cannot use into the step's frames; a refused
 * join fails once; a member the server drops is one disconnect and one error, and so is a socket
 * error on an open connection followed by its close. The step is a plain StepNow holding a real
 * plan and counters.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DROPPED_1006 } from '../../src/client/classify.js';
import type { Connection } from '../../src/client/connection.js';
import { ConnectionEvents } from '../../src/generator/connection-events.js';
import { ConnectionSet } from '../../src/generator/connection-set.js';
import { dialTargetOf } from '../../src/generator/dial.js';
import {
  countError,
  newSecondCounters,
  newStepCounters,
} from '../../src/generator/step-counters.js';
import type { StepNow } from '../../src/generator/step-lifecycle.js';
import { StepSends } from '../../src/generator/step-sends.js';
import { TokenRenewal } from '../../src/generator/token-renewal.js';
import { nowMs } from '../../src/measure/clock.js';
import { ReceiveLedger } from '../../src/measure/ledger.js';
import { encodeFrame } from '../../src/protocol/frame.js';
import { getScenario } from '../../src/scenarios/index.js';
import {
  startTestServer,
  type JoinedMember,
  type TestServer,
  type TestServerOptions,
} from '../support/phoenix-test-server.js';
import { initOf, liveProfile, NO_TOKENS, pause, until } from './support/live-target.js';

let server: TestServer | null = null;
let stopAll: (() => void) | null = null;
afterEach(async () => {
  stopAll?.();
  stopAll = null;
  await server?.close();
  server = null;
});

/** The events of one process's connections to a test server started with `opts`. */
async function liveEvents(opts: TestServerOptions = {}) {
  const members: JoinedMember[] = [];
  server = await startTestServer({ ...opts, onJoin: (m) => members.push(m) });
  const profile = liveProfile(server.url, [{ connections: 3, send_rate: 1, duration: '1s' }]);
  const plan = getScenario(profile.scenario).plan(profile, 0);
  const counters = newStepCounters();
  const second = newSecondCounters();
  const steps: StepNow = {
    step: 0,
    plan,
    counters,
    second,
    countError: (e) => countError(counters, second, e),
  };
  const renewal = new TokenRenewal<Connection>(NO_TOKENS, () => ({}));
  const answered = { attempts: 0 };
  const set = new ConnectionSet<Connection>({
    attemptOpened: () => undefined,
    attemptAnswered: () => answered.attempts++,
    membershipEnded: (c) => renewal.untrack(c),
  });
  const ledger = new ReceiveLedger();
  ledger.beginStep(0);
  const stepSends = new StepSends(profile.load.ack_timeout, steps.countError);
  stepSends.beginStep(profile, plan.payloadBytes, counters);
  const settled = { times: 0 };
  let stopped = false;
  const events = new ConnectionEvents({
    profile,
    dial: dialTargetOf(initOf(profile)),
    owners: 1,
    set,
    ledger,
    renewal,
    steps,
    stepSends,
    ramps: { settle: () => settled.times++ },
    stopped: () => stopped,
  });
  stopAll = () => {
    stopped = true;
    set.closeAll('test done');
  };
  const conn = (i: number) => set.byIndex.get(i)!;
  const errorCount = () => [...counters.errors.values()].reduce((a, b) => a + b, 0);
  return {
    events,
    set,
    counters,
    second,
    ledger,
    stepSends,
    members,
    answered,
    settled,
    conn,
    errorCount,
  };
}

describe('ConnectionEvents', () => {
  it('opens, joins and counts connections; a delivery goes to the ledger, a frame it cannot use to frames', async () => {
    const t = await liveEvents();
    for (let i = 0; i < 3; i++) t.events.open(i, nowMs(), 0);
    await until('3 joined', () => t.counters.joined === 3);
    expect(t.counters).toMatchObject({ opened: 3, failed: 0, disconnected: 0 });
    expect(t.counters.rampJoins.joined).toBe(3);
    expect(t.set).toMatchObject({ openNow: 3, joinedNow: 3 });
    expect(t.answered.attempts).toBe(3);
    expect(t.settled.times).toBeGreaterThanOrEqual(3);
    expect(t.second.joins).toBe(3);
    // Connection 0 sends one stamped broadcast: the two others receive it.
    const sender = t.conn(0);
    expect(
      t.stepSends.send(sender, t.set.meta.get(sender)!.topic, 0, 'broadcast', 0, 0, nowMs()),
    ).toBe(true);
    await until('2 receipts', () => t.ledger.received === 2);
    const m = t.members[1];
    m.send(
      encodeFrame(
        { joinRef: null, ref: null, topic: m.topic, event: 'x', payload: {} },
        m.vsn,
        'server',
      ),
    );
    await until('1 unknown event', () => t.counters.frames.unknownEvent === 1);
    expect(t.counters.errors.size).toBe(0);
  });

  it('a refused join fails once, its reason counted, the socket closed by rtcap', async () => {
    const t = await liveEvents({ topicPrefix: 'nothing-matches:' });
    t.events.open(0, nowMs(), 0);
    await until('1 failed', () => t.counters.failed === 1);
    await until('closed', () => t.conn(0).state === 'closed');
    expect(Object.fromEntries(t.counters.errors)).toEqual({ 'join refused: unmatched topic': 1 });
    expect(t.counters).toMatchObject({ opened: 1, joined: 0, disconnected: 0 });
    expect(t.set).toMatchObject({ openNow: 0, joinedNow: 0 });
    expect(t.answered.attempts).toBe(1);
  });

  it('a member the server drops is one disconnect and one error', async () => {
    const t = await liveEvents();
    t.events.open(0, nowMs(), 0);
    await until('joined', () => t.counters.joined === 1);
    t.members[0].drop();
    await until('closed', () => t.conn(0).state === 'closed');
    await pause(100);
    expect(Object.fromEntries(t.counters.errors)).toEqual({ [DROPPED_1006]: 1 });
    expect(t.counters.disconnected).toBe(1);
    expect(t.second).toMatchObject({ errors: 1, disconnects: 1 });
    expect(t.set).toMatchObject({ openNow: 0, joinedNow: 0 });
  });

  it('a socket error on an open connection and the close after it are one loss, reported once', async () => {
    const t = await liveEvents();
    t.events.open(0, nowMs(), 0);
    await until('joined', () => t.counters.joined === 1);
    // What ws emits on an open socket it cannot write to (its sender's error), then the end of
    // the TCP connection: ws reports the close too.
    t.conn(0).ws!.emit('error', new Error('write EPIPE'));
    t.members[0].drop();
    await until('closed', () => t.conn(0).state === 'closed');
    await pause(100);
    expect(Object.fromEntries(t.counters.errors)).toEqual({ 'socket error: write EPIPE': 1 });
    expect(t.counters.errorClasses.network).toBe(1);
    expect(t.counters.disconnected).toBe(1);
    expect(t.second).toMatchObject({ errors: 1, disconnects: 1 });
  });
});
