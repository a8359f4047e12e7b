/**
 * A step cut short while one generator process is slow: the collect keeps the answers of the
 * processes that replied and names the one that did not, counting nothing of it. Known answer:
 * 10 connections over 2 processes (5 each, by connection index), the built-in server in this
 * process; mid-steady one process is stopped (SIGSTOP: a real process that cannot answer) and
 * the run is interrupted, so the collect waits its 5 s and only the other process answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_JWT_SECRET } from '../../src/builtin/config.js';
import type { SecondRecord } from '../../src/figures/timeline.js';
import { runBenchmark } from '../../src/run/runner.js';
import type { RunningServer } from '../../src/server/server.js';
import { serve } from '../server/helpers.js';
import { profileFrom } from '../support/profiles.js';
import { tempDir } from '../support/temp-dir.js';
import { generatorPids } from '../support/generator-pids.js';

describe('a step whose collect one slow process does not answer', () => {
  let server: RunningServer;
  let stopped: number | null = null;
  beforeAll(async () => {
    server = await serve();
  });
  afterAll(async () => {
    if (stopped !== null) {
      try {
        process.kill(stopped, 'SIGKILL');
      } catch {
        // Already reaped by the run's stop.
      }
    }
    await server.close();
  });

  it('keeps the answering process’s figures, names the one that did not answer, counts nothing of it', async () => {
    const ac = new AbortController();
    const profile = profileFrom({
      name: 'collect-slow',
      scenario: 'broadcast-public',
      target: { url: server.url, vsn: '2.0.0', auth: { jwt_secret: DEV_JWT_SECRET } },
      load: {
        workers: 2,
        join_rate: 1000,
        warmup: '0s',
        drain: '1s',
        steps: [{ connections: 10, send_rate: 10, duration: '60s' }],
      },
      slo: { p95_ms: 5000 },
    });
    // Seconds of the steady window in which messages were sent. Two such seconds before the stop
    // put the first of them more than a second before the cut, so the cut step keeps messages
    // (a step cut short counts those due a second before the cut).
    let sendingSeconds = 0;
    const observer = {
      second: (rec: SecondRecord) => {
        if (rec.point.phase !== 'steady' || rec.point.joined < 10 || stopped !== null) return;
        if (rec.point.sent_per_s > 0) sendingSeconds++;
        if (sendingSeconds < 2) return;
        const pids = generatorPids();
        if (pids.length !== 2) return;
        stopped = pids[1];
        process.kill(stopped, 'SIGSTOP');
        ac.abort();
      },
      step: () => undefined,
    };
    const { result, exitCode } = await runBenchmark({
      profile,
      profilePath: null,
      redactedProfile: {},
      outDir: tempDir('rtcap-collect-slow-'),
      log: () => undefined,
      signal: ac.signal,
      observer,
    });
    expect(stopped, 'no steady second with every connection joined').not.toBeNull();
    expect(exitCode).toBe(130);
    const [step] = result.steps;
    expect(step.complete).toBe(false);
    const unanswered = step.cut_short?.unanswered ?? [];
    expect(unanswered).toHaveLength(1);
    expect(unanswered[0].pid).toBe(stopped);
    expect([1, 2]).toContain(unanswered[0].process);
    expect(step.cut_short?.collected).toBe(true);
    // The answering process's 5 connections, not the 10 its per-second lines and the other's
    // last line said.
    expect(step.connections.joined).toBe(5);
    expect(step.verdict).toBe('inconclusive');
    expect(step.verdict_reasons).toContain(
      `generator process ${unanswered[0].process} (pid ${stopped}) did not answer the collect within 5 s: nothing it measured is counted, the step's figures are the other processes' only`,
    );
    // Its messages are the answering process's: sent by its senders, received by its members.
    // The one sender is connection 0, in process 1. The stopped process is the one with the
    // higher pid, process 2 unless the machine's pids wrapped between the two forks (pid_max
    // 32,768 here, and a full test run forks thousands): then process 1 was stopped, and its
    // sends count for nothing.
    if (unanswered[0].process === 2) expect(step.messages.sent).toBeGreaterThan(0);
    else expect(step.messages.sent).toBe(0);
    expect(step.messages.received).toBeLessThanOrEqual(step.messages.expected);
  }, 90_000);
});
