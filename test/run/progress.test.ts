import { describe, expect, it } from 'vitest';
import type { TimeseriesPoint } from '../../src/result/timeseries-point.js';
import { Progress } from '../../src/run/progress.js';
import { secondLimitsOf, secondLimitWords, StepFailing } from '../../src/model/second-limit.js';
import { limitOfStep } from '../../src/model/step-limit.js';
import { limitWords } from '../../src/model/limit.js';
import { makeStep } from '../fixtures/index.js';

function capture(): { stream: NodeJS.WriteStream; text: () => string } {
  let out = '';
  const stream = {
    isTTY: false,
    columns: 0,
    write: (s: string) => ((out += s), true),
  } as unknown as NodeJS.WriteStream;
  return { stream, text: () => out };
}

describe('Progress', () => {
  it('numbers a search step without a total (a search decides its steps as it goes)', () => {
    const { stream, text } = capture();
    new Progress(stream, true).update(
      { ...point(), step: 3 },
      {
        steps: 0,
        target: 10,
        elapsedInPhaseS: 1,
        phaseLengthS: 5,
      },
    );
    expect(text()).toMatch(/^step 3 steady 1\/5s ·/);
    const fixed = capture();
    new Progress(fixed.stream, true).update(
      { ...point(), step: 3 },
      {
        steps: 4,
        target: 10,
        elapsedInPhaseS: 1,
        phaseLengthS: 5,
      },
    );
    expect(fixed.text()).toMatch(/^step 3\/4 steady/);
  });

  it('shows no clock for a phase planned under a second (a search step ramping 100 connections at 500/s)', () => {
    const line = (elapsedInPhaseS: number, phaseLengthS: number | null) => {
      const { stream, text } = capture();
      new Progress(stream, true).update(
        { ...point(), phase: 'ramp', step: 2 },
        { steps: 0, target: 100, elapsedInPhaseS, phaseLengthS },
      );
      return text();
    };
    // 0.2 s planned, 3 s in while its joins still come in: not "ramp 0/0s".
    expect(line(3, 0.2)).toMatch(/^step 2 ramp · joined/);
    expect(line(3, null)).toMatch(/^step 2 ramp · joined/);
    expect(line(3, 8)).toMatch(/^step 2 ramp 3\/8s · joined/);
  });

  it('names its latency: every receipt, not the first receipt the final table shows', () => {
    const { stream, text } = capture();
    const p = point();
    new Progress(stream, true).update(p, {
      steps: 1,
      target: 10,
      elapsedInPhaseS: 1,
      phaseLengthS: 5,
    });
    expect(text()).toContain('every-receipt p95 42 ms');
    expect(text()).not.toMatch(/· p95/);
  });

  it("names the limit a second met right after the step, in the capacity row's words, and prints it at once", () => {
    const { stream, text } = capture();
    const progress = new Progress(stream, true);
    const ctx = { steps: 2, target: 600, elapsedInPhaseS: 1, phaseLengthS: null };
    // The server at its open-file limit, but nothing failed this second: no limit named yet.
    progress.update({ ...point(), server_open_files: { open: 400, limit: 400 } }, ctx);
    expect(text()).not.toContain('limit');
    // Within the 5 s between plain lines: the second whose connections fail there prints at once.
    progress.update({ ...point(), errors: 3, server_open_files: { open: 396, limit: 400 } }, ctx);
    const lines = text().trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(
      /^step 1\/2 steady · environment limit: server process open-file limit 400 · joined 10\/600 ·/,
    );
    // Far from the limit: not named, and the next line waits its 5 s again.
    progress.update({ ...point(), errors: 3, server_open_files: { open: 200, limit: 400 } }, ctx);
    expect(text().trim().split('\n')).toHaveLength(2);
  });

  it("names the server's open-file limit in a later second of the step whose connections failed before the sample got there", () => {
    const { stream, text } = capture();
    const progress = new Progress(stream, true);
    const ctx = { steps: 4, target: 400, elapsedInPhaseS: 1, phaseLengthS: null };
    // The ramp's second: 20 connections reset, but the once-a-second sample predates the ramp.
    progress.update(
      { ...point(), step: 3, errors: 20, server_open_files: { open: 210, limit: 400 } },
      ctx,
    );
    expect(text()).not.toContain('limit');
    // The next second: the server holds its files at the limit; the step's failures name it.
    progress.update({ ...point(), step: 3, server_open_files: { open: 399, limit: 400 } }, ctx);
    expect(text().trim().split('\n')[1]).toMatch(
      /^step 3\/4 steady · environment limit: server process open-file limit 400 · /,
    );
  });

  it('counts failures per step: a new step at the limit with nothing failed names no limit', () => {
    const failing = new StepFailing();
    expect(failing.add({ step: 3, errors: 20, disconnects: 0 })).toBe(20);
    expect(failing.add({ step: 3, errors: 0, disconnects: 2 })).toBe(22);
    const atLimit = { ...point(), step: 4, server_open_files: { open: 399, limit: 400 } };
    const stepFailing = failing.add(atLimit);
    expect(stepFailing).toBe(0);
    expect(secondLimitWords(atLimit, { stepFailing })).toBeNull();
    expect(secondLimitWords(atLimit, { stepFailing: 22 })).toBe(
      'environment limit: server process open-file limit 400',
    );
  });

  it("names a generator process out of descriptors or ports that second first, with rtcap's own numbers", () => {
    const { stream, text } = capture();
    const progress = new Progress(stream, true);
    const generatorOs = {
      open_files_per_process: 1024,
      ephemeral_ports: 28_232,
      source_addresses: 2,
    };
    const ctx = { steps: 1, target: 5000, elapsedInPhaseS: 1, phaseLengthS: null, generatorOs };
    // Out of descriptors, while the server is also at its limit: rtcap's own limit comes first.
    progress.update(
      {
        ...point(),
        errors: 7,
        generator_os_errors: { EMFILE: 7 },
        server_open_files: { open: 400, limit: 400 },
      },
      ctx,
    );
    progress.update({ ...point(), errors: 4, generator_os_errors: { EADDRNOTAVAIL: 4 } }, ctx);
    const lines = text().trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^step 1\/1 steady · environment limit: rtcap's generator process open-file limit 1,024 · joined/,
    );
    expect(lines[1]).toContain(
      "· environment limit: rtcap's generator process ephemeral ports: 28,232 per source address × 2 source addresses = 56,464 connections to one server address ·",
    );
    // The numbers unknown (not read on this machine): the step's verdict names the errno; the
    // live line does not guess a number.
    const { stream: s2, text: t2 } = capture();
    new Progress(s2, true).update(
      { ...point(), errors: 1, generator_os_errors: { EMFILE: 1 } },
      { ...ctx, generatorOs: null },
    );
    expect(t2()).not.toContain('limit');
  });

  it("names the server's memory cgroup the second its RSS reaches the memory safe line of it, as the step will", () => {
    // The server's memory basis as monitor/server-basis reads it: a 512 MB cgroup, while the
    // profile declares a 4,096 MB instance; the default memory safe line, 85 %.
    const basis = (memory_mb: number, memory_source: 'cgroup' | 'declared') => ({
      vcpus: 2,
      source: 'affinity' as const,
      memory_mb,
      memory_source,
    });
    const run = { profile: {}, target: { builtin: true, instance: { memory_mb: 4096 } } };
    const limits = secondLimitsOf(run, basis(512, 'cgroup'));
    expect(limits.serverMemory?.limits).toEqual({
      safe: { cpu_pct: 70, mem_pct: 85 },
      instance_memory_mb: 4096,
      builtin: true,
    });
    const { stream, text } = capture();
    const progress = new Progress(stream, true);
    const ctx = { steps: 2, target: 600, elapsedInPhaseS: 1, phaseLengthS: null, ...limits };
    // 430 MB of 512: 84.0 %, below the safe line; nothing failed either way.
    progress.update({ ...point(), server_rss_mb: 430 }, ctx);
    expect(text()).not.toContain('limit');
    // 436 MB: 85.2 %, printed at once (within the 5 s between plain lines).
    progress.update({ ...point(), server_rss_mb: 436 }, ctx);
    const lines = text().trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(
      /^step 1\/2 steady · environment limit: server process memory cgroup limit 512 MB · joined 10\/600 ·/,
    );
    // The words the step's reasons and its capacity row use for a step at that memory %.
    const step = makeStep(0, {
      verdict: 'broken',
      server: { mem_pct: 85.2, basis: basis(512, 'cgroup') },
    });
    const rowWords = limitWords(limitOfStep(step, { ...limits.serverMemory!.limits }), {
      remedy: false,
    });
    expect(lines[1]).toContain(`· ${rowWords} ·`);
    // A cgroup as large as the instance is the instance's own memory, and so is the declared
    // basis: the server's memory safe line, not a limit of this machine.
    const at90 = { ...point(), server_rss_mb: 3700 };
    expect(secondLimitWords(at90, secondLimitsOf(run, basis(4096, 'cgroup')))).toBeNull();
    expect(secondLimitWords(at90, secondLimitsOf(run, basis(4096, 'declared')))).toBeNull();
    // No RSS sampled, or no basis known: none.
    expect(secondLimitWords({ ...point(), server_rss_mb: null }, limits)).toBeNull();
    expect(
      secondLimitWords({ ...point(), server_rss_mb: 500 }, secondLimitsOf(run, null)),
    ).toBeNull();
  });

  it('names the limits in the order a step does: the generator, then memory, then open files', () => {
    const run = {
      profile: {},
      target: { builtin: true, instance: { memory_mb: 4096 } },
      generator: { limits: { open_files_per_process: 1024, ephemeral_ports: 28_232 } },
    };
    const limits = secondLimitsOf(run, {
      memory_mb: 512,
      memory_source: 'cgroup',
    });
    const all = {
      ...point(),
      errors: 5,
      server_rss_mb: 500,
      server_open_files: { open: 400, limit: 400 },
    };
    expect(secondLimitWords({ ...all, generator_os_errors: { EMFILE: 5 } }, limits)).toBe(
      "environment limit: rtcap's generator process open-file limit 1,024",
    );
    expect(secondLimitWords(all, limits)).toBe(
      'environment limit: server process memory cgroup limit 512 MB',
    );
    expect(secondLimitWords({ ...all, server_rss_mb: 100 }, limits)).toBe(
      'environment limit: server process open-file limit 400',
    );
  });
});

function point(): TimeseriesPoint {
  return {
    t: 0,
    step: 1,
    phase: 'steady',
    connections_open: 10,
    joined: 10,
    joins_per_s: 0,
    sent_per_s: 1,
    delivered_per_s: 10,
    sent_per_s_60s: 1,
    delivered_per_s_60s: 10,
    delivery_p50_ms: 3,
    delivery_p95_ms: 42,
    delivery_p99_ms: 50,
    errors: 0,
    disconnects: 0,
    server_cpu_pct: 5,
    server_rss_mb: 100,
    generator_cpu_pct: 10,
    generator_lag_p99_ms: 2,
  } as TimeseriesPoint;
}
