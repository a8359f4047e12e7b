/**
 * A generator process ended from outside mid-ramp (SIGTERM from `kill`, a service manager, an
 * operator's pkill) takes its connections with it: the run ends at once as aborted, naming the
 * process and the signal, and keeps what the other process measured. It must not wait out the
 * ramp's deadline for answers that cannot come (here 60 s: a 10 s ramp, twice the 20 s join
 * timeout, 10 s more), nor the collect's 20 s for a process that is gone.
 *
 * Known answer: 50 connections over 2 processes at 5 joins/s against a server that answers joins
 * at 5/s; once 3 have joined, process 2 is sent SIGTERM.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { SecondRecord } from '../../src/figures/timeline.js';
import { runBenchmark } from '../../src/run/runner.js';
import { startTestServer, type TestServer } from '../support/phoenix-test-server.js';
import { profileFrom } from '../support/profiles.js';
import { tempDir } from '../support/temp-dir.js';
import { generatorPids } from '../support/generator-pids.js';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe('a generator process killed mid-ramp', () => {
  it('ends the run at once as aborted, naming the process and its signal', async () => {
    server = await startTestServer({ joinsPerS: 5 });
    const profile = profileFrom({
      name: 'generator-killed',
      scenario: 'broadcast-public',
      target: { url: server.url, vsn: '2.0.0', join_timeout: '20s' },
      load: {
        workers: 2,
        join_rate: 5,
        steps: [{ connections: 50, duration: '2s' }],
        drain: '1s',
      },
    });
    let killedAt: number | null = null;
    let killed: number | null = null;
    const observer = {
      second: (rec: SecondRecord) => {
        if (killed !== null || rec.point.joined < 3) return;
        const pids = generatorPids();
        if (pids.length !== 2) return;
        killed = pids[1];
        killedAt = Date.now();
        process.kill(killed, 'SIGTERM');
      },
      step: () => undefined,
    };
    const outDir = tempDir('rtcap-generator-killed-');
    const { result, exitCode } = await runBenchmark({
      profile,
      profilePath: null,
      redactedProfile: {},
      outDir,
      log: () => undefined,
      observer,
    });
    const endedAfterMs = Date.now() - killedAt!;
    expect(killed, 'no second with 3 joined').not.toBeNull();
    expect(exitCode).toBe(3);
    expect(result.status).toBe('aborted');
    expect(result.abort_reason).toMatch(
      /^generator process failed: generator worker [01] killed by SIGTERM before the run asked it to stop$/,
    );
    // The grace for a signal to the whole group (0.5 s), the processes' stop (3 s at most), the
    // other process's collect: well inside the 20 s a collect would wait for the dead one.
    expect(endedAfterMs).toBeLessThan(12_000);
    const [step] = result.steps;
    expect(step.complete).toBe(false);
    expect(step.cut_short?.unanswered).toHaveLength(1);
    expect(step.cut_short?.unanswered?.[0].pid).toBe(killed);
    const onDisk = JSON.parse(readFileSync(`${outDir}/result.json`, 'utf8')) as {
      status: string;
    };
    expect(onDisk.status).toBe('aborted');
  }, 90_000);
});
