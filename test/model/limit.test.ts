import { describe, expect, it } from 'vitest';
import { isLowerBound, limitWords, LIMIT_KIND_NAME, type Limit } from '../../src/model/limit.js';

describe('limitWords', () => {
  it('names the server process open-file limit with its number and what to do', () => {
    const l: Limit = {
      kind: 'environment',
      resource: 'open files',
      process: 'server',
      limit: 20_000,
      builtin: true,
    };
    expect(limitWords(l)).toBe(
      'environment limit: server process open-file limit 20,000 — raise `ulimit -n` before the run, ' +
        'or run more server processes (target.server.workers, `rtcap serve --workers`)',
    );
    expect(limitWords(l, { remedy: false })).toBe(
      'environment limit: server process open-file limit 20,000',
    );
    expect(isLowerBound(l)).toBe(true);
  });

  it("names rtcap's own processes and the other resources", () => {
    expect(
      limitWords(
        { kind: 'environment', resource: 'open files', process: 'generator', limit: 1024, pid: 42 },
        { remedy: false },
      ),
    ).toBe("environment limit: rtcap's generator process open-file limit 1,024");
    expect(
      limitWords(
        { kind: 'environment', resource: 'ephemeral ports', process: 'coordinator', limit: 28_232 },
        { remedy: false },
      ),
    ).toBe(
      "environment limit: rtcap's coordinator process ephemeral ports: 28,232 per source address",
    );
    expect(
      limitWords(
        { kind: 'environment', resource: 'memory cgroup', process: 'server', limit: 512 * 2 ** 20 },
        { remedy: false },
      ),
    ).toBe('environment limit: server process memory cgroup limit 512 MB');
    expect(
      limitWords({
        kind: 'environment',
        resource: 'ephemeral ports',
        process: 'generator',
        limit: 28_232,
        addresses: 1,
      }),
    ).toBe(
      "environment limit: rtcap's generator process ephemeral ports: 28,232 per source address × 1 source address = 28,232 connections to one server address — add source addresses (load.source_addresses) or widen net.ipv4.ip_local_port_range",
    );
  });

  it('quotes a server rejection verbatim', () => {
    const l: Limit = { kind: 'server-rejection', reason: 'too_many_connections', count: 20 };
    expect(limitWords(l)).toBe('server rejection: “too_many_connections” ×20');
    expect(isLowerBound(l)).toBe(false);
  });

  it('names the generator figure that tripped', () => {
    expect(
      limitWords({ kind: 'generator-bound', figure: 'offered', value: 0.931, limit: 0.99 }),
    ).toBe('generator-bound: offered 93.10% < 99.00% of the scheduled load');
    expect(
      limitWords({ kind: 'generator-bound', figure: 'event-loop lag p99', value: 80, limit: 50 }),
    ).toBe('generator-bound: generator event-loop lag p99 80 ms > 50 ms');
    expect(limitWords({ kind: 'generator-bound', figure: 'CPU', value: 97, limit: 90 })).toBe(
      'generator-bound: generator CPU 97% > 90%',
    );
    expect(isLowerBound({ kind: 'generator-bound', figure: 'CPU', value: 97, limit: 90 })).toBe(
      true,
    );
  });

  it('words the server-side limits as upper bounds and the search ends as lower bounds', () => {
    expect(limitWords({ kind: 'server-cpu', cpu_pct: 81.25, safe_pct: 70 })).toBe(
      'server CPU safe line: 81.3% ≥ 70%',
    );
    expect(limitWords({ kind: 'server-memory', mem_pct: null, safe_pct: 85 })).toBe(
      'server memory safe line (85%)',
    );
    expect(limitWords({ kind: 'latency-slo', p95_ms: 312, slo_p95_ms: 250 })).toBe(
      'latency SLO: p95 312 ms > 250 ms',
    );
    expect(limitWords({ kind: 'budget-spent', budget_s: 600 })).toBe('budget spent (600 s)');
    expect(limitWords({ kind: 'range-end', highest: '20,000 connections' })).toBe(
      'range end: no limit reached up to 20,000 connections',
    );
    expect(isLowerBound({ kind: 'budget-spent', budget_s: 600 })).toBe(true);
    expect(isLowerBound({ kind: 'range-end' })).toBe(true);
    expect(isLowerBound({ kind: 'server-cpu', cpu_pct: 80, safe_pct: 70 })).toBe(false);
    expect(LIMIT_KIND_NAME.environment).toBe('environment limit');
  });
});
