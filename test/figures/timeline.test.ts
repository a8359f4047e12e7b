import { describe, expect, it } from 'vitest';
import { LINE_GRACE_S, Timeline, type SecondRecord } from '../../src/figures/timeline.js';
import { createHistogram, encodeHistogram, recordMs } from '../../src/measure/histogram.js';
import type { SecondStats } from '../../src/generator/ipc.js';

function second(
  worker: number,
  t: number,
  received: number,
  latencies: number[] = [],
): SecondStats {
  const h = createHistogram();
  for (const l of latencies) recordMs(h, l);
  return {
    type: 'second',
    worker,
    t,
    open: 10,
    joined: 10,
    joins: 1,
    sent: 2,
    acked: 1,
    acksPending: 3,
    received,
    bytes: received * 100,
    errors: 0,
    disconnects: 0,
    histogram: encodeHistogram(h),
    health: { cpuPct: 10 * (worker + 1), lagP99Ms: worker, lagMaxMs: worker, rssMb: 50 },
    errorReasons: {},
  };
}

describe('Timeline', () => {
  it("counts the second's connections that failed on a generator's OS limit by errno, summed over processes", () => {
    const out: SecondRecord[] = [];
    const tl = new Timeline(
      2,
      () => ({ step: 0, phase: 'ramp' }),
      { vcpus: 2 },
      (r) => out.push(r),
    );
    tl.add({
      ...second(0, 100, 0),
      errors: 5,
      errorReasons: {
        'generator: EMFILE (open-file limit reached: 1,024 per process)': 3,
        'connect ECONNRESET 127.0.0.1:4000': 2,
      },
    });
    tl.add({
      ...second(1, 100, 0),
      errors: 4,
      errorReasons: {
        'generator: EMFILE (open-file limit reached: 1,024 per process)': 1,
        'generator: EADDRNOTAVAIL (no ephemeral port left on this source address)': 3,
      },
    });
    tl.add(second(0, 101, 0));
    tl.add(second(1, 101, 0));
    expect(out).toHaveLength(2);
    expect(out[0].point.generator_os_errors).toEqual({ EMFILE: 4, EADDRNOTAVAIL: 3 });
    expect(out[0].point.errors).toBe(9);
    // A second without such errors has no field at all (timeseries.ndjson stays as it was).
    expect(out[1].point).not.toHaveProperty('generator_os_errors');
  });

  it('merges the workers of a second into one point, with 60 s sliding means', () => {
    const out: SecondRecord[] = [];
    const tl = new Timeline(
      2,
      () => ({ step: 0, phase: 'steady' }),
      { vcpus: 2 },
      (r) => out.push(r),
    );
    tl.addServerSample({ t: 101_000, cpuCores: 1, rssMb: 200, dbCpuCores: null, dbRssMb: null });
    tl.add(second(0, 100, 30, [1, 2, 3]));
    expect(out).toHaveLength(0); // waits for the other worker
    tl.add(second(1, 100, 70, [10]));
    expect(out).toHaveLength(1);
    const p = out[0].point;
    expect(p.step).toBe(1);
    expect(p.connections_open).toBe(20);
    expect(p.delivered_per_s).toBe(100);
    expect(p.sent_per_s).toBe(4);
    expect(p.acked_per_s).toBe(2);
    expect(p.acks_pending).toBe(6);
    expect(p.delivered_per_s_60s).toBe(100);
    expect(p.delivery_p50_ms).toBeCloseTo(2, 1);
    expect(p.delivery_p99_ms).toBeCloseTo(10, 1);
    expect(p.server_cpu_pct).toBe(50); // one core of two vCPUs
    expect(p.generator_cpu_pct).toBe(20); // the busiest process
    tl.add(second(0, 101, 0));
    tl.add(second(1, 101, 0));
    expect(out[1].point.delivered_per_s_60s).toBe(50);
  });

  it('keeps the 60 s sliding mean of each traffic kind beside the all-kinds one', () => {
    const out: SecondRecord[] = [];
    const tl = new Timeline(
      1,
      () => ({ step: 0, phase: 'steady' }),
      { vcpus: 2 },
      (r) => out.push(r),
    );
    tl.add({ ...second(0, 100, 40), receivedByKind: [30, 10, 0] });
    tl.add({ ...second(0, 101, 10), receivedByKind: [0, 10, 0] });
    expect(out.map((r) => r.deliveredPerS60sByKind)).toEqual([
      [30, 10, 0],
      [15, 10, 0],
    ]);
    expect(out.map((r) => r.point.delivered_per_s_60s)).toEqual([40, 25]);
  });

  it('does not wait forever for a worker that missed a second: a second is written LINE_GRACE_S behind the newest line', () => {
    const out: SecondRecord[] = [];
    const tl = new Timeline(
      2,
      () => ({ step: 0, phase: 'ramp' }),
      { vcpus: 2 },
      (r) => out.push(r),
    );
    for (let t = 100; t <= 100 + LINE_GRACE_S; t++) tl.add(second(0, t, 5));
    expect(out).toHaveLength(0);
    tl.add(second(0, 101 + LINE_GRACE_S, 5));
    expect(out.map((r) => r.point.t)).toEqual([100]);
    tl.flush();
    expect(out.map((r) => r.point.t)).toEqual([100, 101, 102, 103, 104, 105, 106]);
  });

  it('writes each second once and in order: a late line is counted in the next second written, its gauges carried', () => {
    const out: SecondRecord[] = [];
    let phase: 'ramp' | 'steady' = 'ramp';
    const tl = new Timeline(
      2,
      () => ({ step: 0, phase }),
      { vcpus: 2 },
      (r) => out.push(r),
    );
    // Worker 1 lags: its lines for 100 and 101 arrive after worker 0 has reached 107.
    tl.add(second(0, 100, 5));
    phase = 'steady';
    for (let t = 101; t <= 107; t++) tl.add(second(0, t, 5));
    expect(out.map((r) => r.point.t)).toEqual([100, 101]);
    // Second 100 was written without worker 1: its gauges had no line yet, so only worker 0's.
    expect(out[0].point.joined).toBe(10);
    expect(out[0].point.phase).toBe('ramp'); // the phase its first line came in, not the writer's
    tl.add({ ...second(1, 100, 7), joined: 20, open: 20 });
    tl.add({ ...second(1, 101, 7), joined: 20, open: 20 });
    tl.add(second(0, 108, 5)); // writes 102, with worker 1's two late lines
    tl.flush();
    const ts = out.map((r) => r.point.t);
    expect(ts).toEqual([...ts].sort((a, b) => a - b));
    expect(new Set(ts).size).toBe(ts.length);
    const p102 = out.find((r) => r.point.t === 102)!.point;
    expect(p102.late_lines).toBe(2);
    expect(p102.delivered_per_s).toBe(5 + 7 + 7);
    // Worker 1 has no line of 102: its newest (101: 20 joined) counts.
    expect(p102.joined).toBe(10 + 20);
    expect(out.filter((r) => r.point.late_lines !== undefined)).toHaveLength(1);
    // Every line counted once.
    expect(out.reduce((n, r) => n + r.point.delivered_per_s, 0)).toBe(9 * 5 + 2 * 7);
  });

  it('writes late lines that come after the last second in a second of their own at flush', () => {
    const out: SecondRecord[] = [];
    const tl = new Timeline(
      2,
      () => ({ step: 0, phase: 'drain' }),
      { vcpus: 2 },
      (r) => out.push(r),
    );
    tl.add(second(0, 100, 1));
    tl.add(second(1, 100, 1));
    tl.add(second(1, 99, 4)); // its second is before the first written
    tl.flush();
    expect(out.map((r) => [r.point.t, r.point.delivered_per_s, r.point.late_lines])).toEqual([
      [100, 2, undefined],
      [101, 4, 1],
    ]);
  });

  it('selects the seconds wholly inside a window', () => {
    const tl = new Timeline(
      1,
      () => ({ step: 0, phase: 'steady' }),
      { vcpus: 2 },
      () => undefined,
    );
    for (const t of [100, 101, 102, 103]) tl.add(second(0, t, 1));
    expect(tl.between(100_500, 103_000).map((r) => r.point.t)).toEqual([101, 102]);
  });

  it('keeps a bounded history: seconds without their histogram (the emitted record keeps it), and none of a finished step after forgetUntil', () => {
    const out: SecondRecord[] = [];
    const tl = new Timeline(
      1,
      () => ({ step: 0, phase: 'steady' }),
      { vcpus: 2 },
      (r) => out.push(r),
    );
    for (let t = 100; t < 110; t++) tl.add(second(0, t, 5, [3]));
    expect(out).toHaveLength(10);
    expect(out[0].workers[0].histogram).not.toBe('');
    expect(tl.seconds).toHaveLength(10);
    expect(
      tl.seconds.every((r) => r.workers[0].histogram === '' && r.workers[0].received === 5),
    ).toBe(true);
    // The step ended with second 104 (its span ends at 105,000 ms).
    tl.forgetUntil(105_000);
    expect(tl.seconds.map((r) => r.point.t)).toEqual([105, 106, 107, 108, 109]);
    expect(tl.between(100_000, 110_000).map((r) => r.point.t)).toEqual([105, 106, 107, 108, 109]);
    tl.forgetUntil(200_000);
    expect(tl.seconds).toHaveLength(0);
  });
});
