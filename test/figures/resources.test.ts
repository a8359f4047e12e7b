import { describe, expect, it } from 'vitest';
import {
  databaseFigures,
  generatorFigures,
  rssPerConnectionKb,
  serverMemoryFields,
  samplesInWindow,
  serverFigures,
} from '../../src/figures/resources.js';
import type { SecondRecord } from '../../src/figures/timeline.js';
import type { ResourceSample } from '../../src/monitor/types.js';

const sample = (
  t: number,
  cpuCores: number | null,
  rssMb: number | null,
  db: number | null = null,
) => ({ t, cpuCores, rssMb, dbCpuCores: db, dbRssMb: db === null ? null : 100 });
const basis = {
  vcpus: 4,
  memory_mb: 4000,
  source: 'affinity' as const,
  memory_source: 'declared' as const,
};
const w = { rampStart: 0, rampEnd: 0, steadyStart: 1000, steadyEnd: 3000, drainEnd: 4000 };

describe('resource figures', () => {
  it('keeps the samples covering the steady window (a sample covers the second before it)', () => {
    const xs = [sample(1000, 1, 1), sample(1001, 1, 1), sample(4000, 1, 1), sample(4001, 1, 1)];
    expect(samplesInWindow(xs, w).map((s) => s.t)).toEqual([1001, 4000]);
  });

  it('server CPU % of the basis vCPUs and memory % of its memory, from the means; null without samples', () => {
    const s = serverFigures(
      [sample(1, 1, 500), sample(2, 3, 1500), sample(3, null, null)],
      basis,
      'proc',
    );
    expect(s).toEqual({
      cpu_pct: 50,
      cpu_pct_max: 75,
      mem_pct: 25,
      rss_mb: 1000,
      rss_mb_max: 1500,
      source: 'proc',
      basis,
    });
    expect(serverFigures([], basis, 'proc')).toEqual({
      cpu_pct: null,
      cpu_pct_max: null,
      mem_pct: null,
      rss_mb: null,
      rss_mb_max: null,
      source: null,
      basis,
    });
  });

  it('database CPU % of one core; null when it was not sampled', () => {
    expect(databaseFigures([sample(1, 1, 1, 0.5), sample(2, 1, 1, 0.25)])).toEqual({
      cpu_pct: 37.5,
      rss_mb: 100,
    });
    expect(databaseFigures([sample(1, 1, 1)])).toBeNull();
  });

  it('generator: the busiest process mean CPU, the worst lag, peak RSS', () => {
    const sec = (cpu: [number, number], rss: [number, number]) =>
      ({
        workers: [0, 1].map((wi) => ({ worker: wi, health: { cpuPct: cpu[wi], rssMb: rss[wi] } })),
      }) as unknown as SecondRecord;
    const g = generatorFigures({
      steadySeconds: [sec([10, 40], [100, 200]), sec([30, 60], [150, 120])],
      workers: 2,
      lagsP99Ms: [3, null, 12.34],
      offeredRatio: 0.98765,
      lateJoins: 2,
    });
    expect(g).toEqual({
      cpu_pct: 50,
      event_loop_lag_p99_ms: 12.3,
      offered_ratio: 0.988,
      late_joins: 2,
      rss_mb: 200,
      rss_mb_total: 300,
      rss_per_connection_kb: null,
      rss_mb_by_process: [100, 200],
      workers: 2,
    });
    const parts = generatorFigures({
      steadySeconds: [],
      workers: 1,
      lagsP99Ms: [],
      offeredRatio: 0.5,
      offeredByPart: { broadcast: 1, presence: 0.5 },
      lateJoins: 0,
    });
    expect(parts.offered_by_part).toEqual({ broadcast: 1, presence: 0.5 });
    expect(
      generatorFigures({
        steadySeconds: [],
        workers: 1,
        lagsP99Ms: [],
        offeredRatio: 1,
        offeredByPart: { broadcast: 1 },
        lateJoins: 0,
      }).offered_by_part,
    ).toBeUndefined();
    expect(
      generatorFigures({
        steadySeconds: [],
        workers: 1,
        lagsP99Ms: [],
        offeredRatio: null,
        lateJoins: 0,
      }),
    ).toMatchObject({
      cpu_pct: null,
      event_loop_lag_p99_ms: null,
      offered_ratio: null,
      rss_mb: null,
    });
  });

  it('generator: how many steady seconds hold a piece of a line that covered several', () => {
    const sec = (spread: number[]) =>
      ({
        workers: spread.map((n, wi) => ({
          worker: wi,
          health: { cpuPct: 1, rssMb: 1 },
          ...(n > 1 ? { spread: n } : {}),
        })),
      }) as unknown as SecondRecord;
    const of = (seconds: SecondRecord[]) =>
      generatorFigures({
        steadySeconds: seconds,
        workers: 2,
        lagsP99Ms: [],
        offeredRatio: 1,
        lateJoins: 0,
      }).spread_seconds;
    expect(of([sec([1, 1]), sec([3, 1]), sec([3, 3]), sec([1, 1])])).toBe(2);
    expect(of([sec([1, 1])])).toBeUndefined();
  });

  it("generator memory per connection: the processes' summed RSS in one second (the highest), less their RSS before any connection, over the connections joined", () => {
    const sec = (rss: number[]) =>
      ({
        workers: rss.map((r, wi) => ({ worker: wi, health: { cpuPct: 1, rssMb: r } })),
      }) as unknown as SecondRecord;
    // Seconds where a process did not report are not summed (they would read low).
    const g = generatorFigures({
      steadySeconds: [sec([100, 120]), sec([110, 115]), sec([500])],
      workers: 2,
      lagsP99Ms: [],
      offeredRatio: 1,
      lateJoins: 0,
      idleRssMb: 125,
      joined: 1024,
    });
    expect(g.rss_mb_total).toBe(225);
    expect(g.rss_per_connection_kb).toBe(100);
    // Each process's share in that second, process 0 first.
    expect(g.rss_mb_by_process).toEqual([110, 115]);
    expect(rssPerConnectionKb(225, 125, 1024)).toBe(100);
    expect(rssPerConnectionKb(225, null, 1024)).toBeNull();
    expect(rssPerConnectionKb(225, 125, 0)).toBeNull();
    expect(rssPerConnectionKb(null, 125, 10)).toBeNull();
  });

  it('a second carrying a late line of a process counts that process once, and is not complete for a process it lacks', () => {
    const line = (worker: number, rssMb: number) => ({ worker, health: { cpuPct: 1, rssMb } });
    const sec = (lines: ReturnType<typeof line>[]) =>
      ({ workers: lines }) as unknown as SecondRecord;
    const g = generatorFigures({
      // Its own line of process 0 (100) first, then a late one of the same process (90): 100 + 120.
      steadySeconds: [
        sec([line(0, 100), line(1, 120), line(0, 90)]),
        sec([line(0, 400), line(0, 401)]),
      ],
      workers: 2,
      lagsP99Ms: [],
      offeredRatio: 1,
      lateJoins: 0,
      idleRssMb: 120,
      joined: 1024,
    });
    expect(g.rss_mb_total).toBe(220);
    expect(g.rss_mb_by_process).toEqual([100, 120]);
  });

  it("server memory per connection: the steady window's highest summed RSS, less the server's first sample, over the connections joined; each process's RSS at that sample", () => {
    const at = (t: number, procs: number[]): ResourceSample => ({
      t,
      cpuCores: 0.1,
      rssMb: procs.reduce((a, b) => a + b, 0),
      dbCpuCores: null,
      dbRssMb: null,
      processes: procs.map((rssMb, i) => ({ pid: 100 + i, rssMb })),
    });
    // 100 MiB idle; peak 300 MiB (100 + 200) over 2,048 connections: 100 KiB each.
    const f = serverMemoryFields(
      [at(1, [90, 150]), at(2, [100, 200]), at(3, [95, 190])],
      100,
      2048,
    );
    expect(f).toEqual({
      rss_per_connection_kb: 100,
      rss_mb_by_process: [
        { pid: 100, rss_mb: 100 },
        { pid: 101, rss_mb: 200 },
      ],
    });
    // No baseline: processes still shown, the per-connection figure unknown.
    expect(serverMemoryFields([at(1, [50])], null, 10).rss_per_connection_kb).toBeNull();
    // A server not sampled from /proc (Prometheus): nothing.
    const { processes: _p, ...prom } = at(1, [50]);
    expect(serverMemoryFields([prom], 10, 10)).toEqual({});
    expect(serverMemoryFields([], 10, 10)).toEqual({});
  });
});
