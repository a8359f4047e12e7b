/**
 * Issue 8 item 7: server CPU % and memory % are of what the server can use. The built-in
 * server pinned to one core (--server-cpus 0) has a basis of 1 vCPU read from its affinity,
 * whatever the declared instance says, and the run warns about the disagreement.
 */
import { describe, expect, it } from 'vitest';
import { runBenchmark } from '../../src/run/runner.js';
import { profileFrom } from '../support/profiles.js';
import { tempDir } from '../support/temp-dir.js';

describe('server basis', () => {
  it('a built-in server pinned to one core: basis 1 vCPU from affinity, CPU % of that core', async () => {
    const profile = profileFrom({
      name: 'basis',
      scenario: 'broadcast-public',
      target: { instance: { vcpus: 4, memory_mb: 8192 }, server: { workers: 1, database: false } },
      load: {
        join_rate: 200,
        drain: '1s',
        settle: '200ms',
        steps: [{ connections: 3, send_rate: 10, duration: '2s' }],
      },
    });
    const lines: string[] = [];
    const { result, exitCode } = await runBenchmark({
      profile,
      profilePath: null,
      redactedProfile: {},
      outDir: tempDir('rtcap-basis-'),
      serverCpus: '0',
      log: (l) => lines.push(l),
    });
    expect(exitCode, result.abort_reason ?? '').toBe(0);
    const server = result.steps[0].server;
    expect(server.basis).toEqual({
      vcpus: 1,
      memory_mb: 8192,
      source: 'affinity',
      memory_source: 'declared',
    });
    expect(lines).toContain(
      'warning: the server can use 1 vCPU (affinity) vs 4 declared: CPU % and memory % are of what it can use',
    );
    // One core cannot be more than 100 % busy (samples are rounded to 0.1 and taken over ~1 s).
    if (server.cpu_pct_max !== null) expect(server.cpu_pct_max).toBeLessThanOrEqual(110);
  });
});
