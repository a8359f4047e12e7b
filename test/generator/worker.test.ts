/**
 * GeneratorWorker in the test's own process, given the coordinator's messages as pool.ts sends
 * them, against a test server on loopback whose true counts are known (no process spawned).
 *
 * Between a step's collection and the next step's first message (the drain is over, a sweep's
 * recovery probe may be waiting) the connections still receive: the server's test writes, to
 * every member, deliveries of the collected step held back past its collection and one frame
 * rtcap does not use. Each is counted exactly once over the two steps.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { FromWorker, StepCollected } from '../../src/generator/ipc.js';
import { GeneratorWorker } from '../../src/generator/worker.js';
import { nowMs } from '../../src/measure/clock.js';
import { encodeFrame } from '../../src/protocol/frame.js';
import {
  startTestServer,
  type JoinedMember,
  type TestServer,
} from '../support/phoenix-test-server.js';
import { initOf, liveProfile, pause, until } from './support/live-target.js';

let server: TestServer | null = null;
let worker: GeneratorWorker | null = null;
afterEach(async () => {
  worker?.stop();
  worker = null;
  await server?.close();
  server = null;
});

/** A worker whose posts are kept, and a wait for the first post of a type and step. */
function startWorker() {
  const posted: FromWorker[] = [];
  const w = new GeneratorWorker((m) => posted.push(m));
  worker = w;
  const waitFor = async <T extends FromWorker['type']>(type: T, step = -1) => {
    const find = () =>
      posted.find((m) => m.type === type && (step < 0 || ('step' in m && m.step === step)));
    await until(`${type} of step ${step}`, () => find() !== undefined);
    return find() as Extract<FromWorker, { type: T }>;
  };
  return { w, posted, waitFor };
}

describe('GeneratorWorker: the coordinator\u2019s messages, dispatched', () => {
  it("refuses a step's message before the init message, naming it", () => {
    const { w } = startWorker();
    expect(() => w.handle({ type: 'collect', step: 0 })).toThrow(
      "generator process: 'collect' arrived before 'init'",
    );
    expect(() => w.handle({ type: 'send', step: 0, startMs: 0 })).toThrow(/'send' arrived/);
  });

  it('runs a step from init to collect: every send delivered to every other member', async () => {
    const N = 4;
    server = await startTestServer();
    const profile = liveProfile(server.url, [{ connections: N, send_rate: 5, duration: '1s' }]);
    const { w, waitFor } = startWorker();
    w.handle(initOf(profile));
    expect((await waitFor('ready')).worker).toBe(0);
    w.handle({ type: 'ramp', step: 0, fromConn: 0, toConn: N, startMs: nowMs() + 20 });
    expect(await waitFor('rampDone', 0)).toMatchObject({ joined: N, failed: 0, errors: {} });
    w.handle({ type: 'send', step: 0, startMs: nowMs() + 20 });
    await waitFor('sendDone', 0);
    await until('every delivery written', () => server!.stats.deliveries === 5 * (N - 1));
    await pause(300);
    w.handle({ type: 'collect', step: 0 });
    const c = await waitFor('collected', 0);
    expect(c.sendStats).toMatchObject({ scheduled: 5, sent: 5, failed: 0 });
    expect(c.receipts).toMatchObject({ received: 5 * (N - 1), stale: 0, duplicates: 0 });
    expect(c.connections).toMatchObject({ opened: N, joined: N, joinedAtEnd: N, failed: 0 });
    expect(c.errors).toEqual({});
  }, 30_000);

  it('counts what arrives between a step\u2019s collection and the next step in the next step', async () => {
    const N = 4;
    const members: JoinedMember[] = [];
    // Every delivery is written 1.5 s after its push: the step's are still on their way when it
    // is collected right after its sends.
    server = await startTestServer({ delayMs: 1_500, onJoin: (m) => members.push(m) });
    const steps = [{ connections: N, send_rate: 5, duration: '1s' }];
    const profile = liveProfile(server.url, [...steps, ...steps]);
    const { w, waitFor } = startWorker();
    w.handle(initOf(profile));
    w.handle({ type: 'ramp', step: 0, fromConn: 0, toConn: N, startMs: nowMs() + 20 });
    await waitFor('rampDone', 0);
    w.handle({ type: 'send', step: 0, startMs: nowMs() + 20 });
    await waitFor('sendDone', 0);
    w.handle({ type: 'collect', step: 0 });
    const first: StepCollected = await waitFor('collected', 0);
    const delivered = first.sendStats.sent * (N - 1);
    expect(first.sendStats.sent).toBe(5);
    // Between the steps: the held deliveries, and one frame of an event rtcap does not handle.
    await until('every delivery written', () => server!.stats.deliveries === delivered);
    expect(members).toHaveLength(N);
    for (const m of members) {
      const frame = { joinRef: null, ref: null, topic: m.topic, event: 'rtcap_test', payload: {} };
      m.send(encodeFrame(frame, m.vsn, 'server'));
    }
    await pause(500);
    // The next step begins with its first message (no ramp: it holds as many connections).
    w.handle({ type: 'shrink', step: 1, toConn: N });
    w.handle({ type: 'collect', step: 1 });
    const second: StepCollected = await waitFor('collected', 1);
    // Each delivery counted once: received in its step, or stale in the next, never lost.
    expect(second.receipts.stale).toBeGreaterThan(0);
    expect(first.receipts.received + second.receipts.stale).toBe(delivered);
    expect(second.receipts.received).toBe(0);
    expect(first.frames?.unknownEvent).toBe(0);
    expect(second.frames?.unknownEvent).toBe(N);
  }, 30_000);
});
