import { describe, expect, it } from 'vitest';
import { atOpenFilesLimit, limitContextOf, limitOfStep } from '../../src/model/step-limit.js';
import { limitWords } from '../../src/model/limit.js';
import { makeRun, makeStep } from '../fixtures/index.js';

const safe = { cpu_pct: 70, mem_pct: 85 };

describe('limitOfStep', () => {
  it("names the server process's open-file limit when connections failed with its files all open", () => {
    const step = makeStep(3, {
      verdict: 'broken',
      connections: { failed: 70 },
      errors: { 'connect ECONNRESET': 70 },
      server: { open_files: { max: 400, limit: 400, pid: 77 } },
    });
    const limit = limitOfStep(step, { safe, builtin: true });
    expect(limit).toEqual({
      kind: 'environment',
      resource: 'open files',
      process: 'server',
      limit: 400,
      pid: 77,
      builtin: true,
    });
    expect(limitWords(limit, { remedy: false })).toBe(
      'environment limit: server process open-file limit 400',
    );
  });

  it('is no environment limit while the server had files to spare', () => {
    const step = makeStep(3, {
      verdict: 'broken',
      connections: { failed: 5 },
      errors: { 'connect ECONNRESET': 5 },
      server: { open_files: { max: 300, limit: 400, pid: 77 } },
    });
    expect(limitWords(limitOfStep(step, { safe }))).toBe(
      'join SLO (5 connections failed: connect ECONNRESET ×5, no reason given by the server)',
    );
  });

  it('quotes the server only when it said something: a refused upgrade, a close reason, a join reply', () => {
    const refused = makeStep(2, {
      verdict: 'broken',
      connections: { failed: 20 },
      errors: { 'upgrade refused: HTTP 503 too many connections': 20, 'connect ECONNRESET': 1 },
    });
    expect(limitWords(limitOfStep(refused, { safe }))).toBe(
      'server rejection: “upgrade refused: HTTP 503 too many connections” ×20',
    );
    const closed = makeStep(2, {
      verdict: 'broken',
      connections: { disconnected: 4 },
      errors: { 'closed by server: 1008 over quota': 4 },
    });
    expect(limitOfStep(closed, { safe })).toEqual({
      kind: 'server-rejection',
      reason: 'closed by server: 1008 over quota',
      count: 4,
    });
    // 1006: no close frame, the connection just ended — nothing was said.
    const ended = makeStep(2, {
      verdict: 'broken',
      connections: { disconnected: 4 },
      errors: { 'closed by server: 1006': 4 },
    });
    expect(limitOfStep(ended, { safe })).toEqual({ kind: 'disconnects', count: 4 });
  });

  it("names the generator's figure that tripped, the OS limit of rtcap's process first", () => {
    const lag = makeStep(1, {
      verdict: 'generator-bound',
      verdict_reasons: [
        'offered 97.00% of the scheduled load < 99.00%',
        'generator event-loop lag p99 180 ms > 50 ms',
      ],
      generator: { event_loop_lag_p99_ms: 180, offered_ratio: 0.97 },
    });
    expect(limitOfStep(lag, { safe })).toMatchObject({
      kind: 'generator-bound',
      figure: 'event-loop lag p99',
      value: 180,
      limit: 50,
    });
    expect(limitWords(limitOfStep(lag, { safe }))).toBe(
      'generator-bound: generator event-loop lag p99 180 ms > 50 ms',
    );
    const emfile = makeStep(1, {
      verdict: 'generator-bound',
      errors: { 'generator: EMFILE (open-file limit reached)': 9 },
    });
    const ctx = { safe, generator_os: { open_files_per_process: 1024, ephemeral_ports: 28_232 } };
    expect(limitWords(limitOfStep(emfile, ctx), { remedy: false })).toBe(
      "environment limit: rtcap's generator process open-file limit 1,024",
    );
    const ports = makeStep(1, {
      verdict: 'generator-bound',
      errors: { 'generator: EADDRNOTAVAIL (no ephemeral port left on this source address)': 3 },
    });
    expect(limitOfStep(ports, ctx)).toMatchObject({
      kind: 'environment',
      resource: 'ephemeral ports',
      limit: 28_232,
      addresses: 1,
    });
    const four = { ...ctx, generator_os: { ...ctx.generator_os, source_addresses: 4 } };
    expect(limitWords(limitOfStep(ports, four))).toBe(
      "environment limit: rtcap's generator process ephemeral ports: 28,232 per source address × 4 source addresses = 112,928 connections to one server address — add source addresses (load.source_addresses) or widen net.ipv4.ip_local_port_range",
    );
  });

  it("a server at its memory safe line under a cgroup tighter than the instance: that cgroup's limit", () => {
    const basis = (memory_mb: number, memory_source: 'cgroup' | 'declared') => ({
      vcpus: 2,
      memory_mb,
      source: 'affinity' as const,
      memory_source,
    });
    const full = (b: ReturnType<typeof basis>) =>
      makeStep(0, { verdict: 'broken', server: { mem_pct: 91, basis: b } });
    const ctx = { safe, instance_memory_mb: 4096, builtin: true };
    const env = limitOfStep(full(basis(512, 'cgroup')), ctx);
    expect(env).toMatchObject({
      kind: 'environment',
      resource: 'memory cgroup',
      process: 'server',
      limit: 512 * 2 ** 20,
    });
    expect(limitWords(env, { remedy: false })).toBe(
      'environment limit: server process memory cgroup limit 512 MB',
    );
    // A cgroup as large as the instance is the instance's own memory; so is the declared basis.
    expect(limitOfStep(full(basis(4096, 'cgroup')), ctx).kind).toBe('server-memory');
    expect(limitOfStep(full(basis(4096, 'declared')), ctx).kind).toBe('server-memory');
  });

  it('keeps resource lines first, then delivery, join and latency', () => {
    expect(
      limitOfStep(makeStep(0, { verdict: 'broken', server: { mem_pct: 90 } }), { safe }).kind,
    ).toBe('server-memory');
    expect(
      limitOfStep(makeStep(0, { verdict: 'degraded', server: { cpu_pct: 75 } }), { safe }).kind,
    ).toBe('server-cpu');
    expect(
      limitOfStep(
        makeStep(0, { verdict: 'broken', verdict_reasons: ['delivery 97.00% < SLO 100%'] }),
        { safe },
      ),
    ).toEqual({ kind: 'delivery', detail: 'delivery 97.00% < SLO 100%' });
    const slowJoins = makeStep(0, {
      verdict: 'degraded',
      verdict_reasons: ['join p95 2,400 ms > SLO 1,000 ms'],
    });
    expect(limitOfStep(slowJoins, { safe }).kind).toBe('join-slo');
    const slow = makeStep(0, { verdict: 'degraded', verdict_reasons: ['p95 260 ms > SLO 200 ms'] });
    expect(limitWords(limitOfStep(slow, { safe }))).toBe('latency SLO (p95 260 ms > SLO 200 ms)');
    expect(limitOfStep(makeStep(0), { safe }).kind).toBe('range-end');
  });

  it("reads a run's context: its SLO, built-in server, rtcap's limits and generator limits", () => {
    const run = makeRun('broadcast-public', [makeStep(0)]);
    run.profile.resolved = { generator: { max_event_loop_lag_p99_ms: 150 } };
    const ctx = limitContextOf(run);
    expect(ctx.generator).toEqual({
      min_offered_ratio: 0.99,
      max_event_loop_lag_p99_ms: 150,
      max_cpu_pct: 90,
    });
    expect(ctx.slo_p95_ms).toBe(run.slo.p95_ms);
    expect(ctx.instance_memory_mb).toBe(run.target.instance.memory_mb);
  });
});

describe('atOpenFilesLimit', () => {
  it('counts within 1 % or 8 descriptors of the limit as at it', () => {
    expect(atOpenFilesLimit(19_980, 20_000)).toBe(true);
    expect(atOpenFilesLimit(19_790, 20_000)).toBe(false);
    expect(atOpenFilesLimit(292, 300)).toBe(true);
    expect(atOpenFilesLimit(291, 300)).toBe(false);
    expect(atOpenFilesLimit(500, null)).toBe(false);
  });
});

describe('generator limits as the verdict judged them', () => {
  it('reads the limit from the reason when the result keeps no profile', () => {
    const step = makeStep(1, {
      verdict: 'generator-bound',
      verdict_reasons: [
        'offered 40.00% of the scheduled load < 95.00%',
        'generator event-loop lag p99 133 ms > 60 ms',
      ],
      generator: { event_loop_lag_p99_ms: 133, offered_ratio: 0.4 },
    });
    expect(limitOfStep(step, { safe })).toMatchObject({
      figure: 'event-loop lag p99',
      value: 133,
      limit: 60,
    });
    const offered = makeStep(1, {
      verdict: 'generator-bound',
      verdict_reasons: ['offered 40.00% of the scheduled load < 95.00%'],
      generator: { offered_ratio: 0.4 },
    });
    expect(limitOfStep(offered, { safe })).toMatchObject({
      figure: 'offered',
      value: 0.4,
      limit: 0.95,
    });
  });
});
