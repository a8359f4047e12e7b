/**
 * GeneratorWorker in the test's own process, given the coordinator's messages as pool.ts sends
 * them, against a test server on loopback whose true counts are known (no process spawned).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { FromWorker } from '../../src/generator/ipc.js';
import { GeneratorWorker } from '../../src/generator/worker.js';
import { nowMs } from '../../src/measure/clock.js';
import { startTestServer, type TestServer } from '../support/phoenix-test-server.js';
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
});
