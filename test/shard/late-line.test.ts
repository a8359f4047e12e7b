/**
 * One rule for a per-second line that reaches the coordinator after its second was written: the
 * run's own step figures (figures/timeline, fed lines as they arrive) and `rtcap merge` (the
 * shard's lines replayed in order of their second) count it in its own second, the second its
 * deliveries were received. Known answers: two processes, 10 + 50 deliveries in second 101 and
 * 10 + 10 in each of 102–108, none in 100, so the 60 s sliding means run 0, 30, 26.7, 25, …
 * (max 30) and the steady seconds 102–107 deliver 20/s.
 */
import { describe, expect, it } from 'vitest';
import type { SecondStats } from '../../src/generator/ipc.js';
import { createHistogram, encodeHistogram, recordMs } from '../../src/measure/histogram.js';
import { Timeline, type SecondRecord } from '../../src/figures/timeline.js';
import { deliveredPerS60sMax, stepRates } from '../../src/figures/rates.js';
import type { StepWindow } from '../../src/figures/window.js';
import { ShardRecorder } from '../../src/shard/record.js';
import { mergeShards } from '../../src/shard/merge.js';
import { replayTimeline } from '../../src/shard/rebuild.js';
import { shardRun } from '../support/shard-run.js';

const WINDOW: StepWindow = {
  rampStart: 100_000,
  rampEnd: 101_000,
  steadyStart: 102_000,
  steadyEnd: 108_000,
  drainEnd: 108_500,
};

function line(worker: number, t: number, received: number, joined = 10): SecondStats {
  const h = createHistogram();
  for (let i = 0; i < received; i++) recordMs(h, 2 + worker);
  return {
    type: 'second',
    worker,
    t,
    open: joined,
    joined,
    joins: 0,
    sent: 1,
    acked: 0,
    acksPending: 0,
    received,
    bytes: received * 100,
    errors: 0,
    disconnects: 0,
    histogram: encodeHistogram(h),
    health: { cpuPct: 10, lagP99Ms: 1, lagMaxMs: 1, rssMb: 50 },
    errorReasons: {},
  };
}

/** Process 0's lines and process 1's, seconds 100–108 (process 1 joins 10 more in 101). */
const W0 = [100, 101, 102, 103, 104, 105, 106, 107, 108].map((t) => line(0, t, t === 100 ? 0 : 10));
const W1 = [100, 101, 102, 103, 104, 105, 106, 107, 108].map((t) =>
  line(1, t, t === 100 ? 0 : t === 101 ? 50 : 10, t === 100 ? 10 : 20),
);

/** Each second's lines together, as processes that keep up send them. */
const ON_TIME = W0.flatMap((l, i) => [l, W1[i]]);
/**
 * Process 1's line of 101 comes after process 0 reached 107: second 101 is written without it
 * (LINE_GRACE_S behind), and the line arrives late.
 */
const LATE = [W0[0], W1[0], ...W0.slice(1, 8), ...W1.slice(1), W0[8]];
/** Process 1's line of 99 comes after 100 was written: a second no other line had. */
const BEFORE_FIRST = [...ON_TIME, { ...line(1, 99, 40) }];

/**
 * Process 1's tick for 103 and 104 came late: its line of 105 covers 103–105 (30 deliveries, 10
 * in each), arriving after process 0's 105. Spread evenly, it gives the same seconds as ON_TIME.
 */
const COVERING: SecondStats = { ...W1[5], from: 103, received: 30, bytes: 3000, sent: 3 };
const SPREAD = [...ON_TIME.slice(0, 6), W0[3], W0[4], W0[5], COVERING, ...ON_TIME.slice(12)];

function figures(tl: Timeline) {
  const step = tl.between(WINDOW.rampStart, WINDOW.drainEnd + 1000);
  const steady = tl.between(WINDOW.steadyStart, WINDOW.steadyEnd);
  return {
    rates: stepRates({
      figures: { received: 0 },
      sends: [],
      primaryKind: 'broadcast',
      window: WINDOW,
      steadySeconds: steady,
      stepSeconds: step,
      joinsPerS: null,
      rejoinsPerS: null,
      ackRequested: false,
    }),
    broadcast60sMax: deliveredPerS60sMax('broadcast', step),
    seconds: step.map((r) => [
      r.point.t,
      r.point.delivered_per_s,
      r.point.delivered_per_s_60s,
      r.point.joined,
    ]),
  };
}

/** The run's own path: lines fed as they arrive, each recorded in the shard as it comes. */
function live(arrival: readonly SecondStats[]) {
  const emitted: SecondRecord[] = [];
  const tl = new Timeline(
    2,
    () => ({ step: 0, phase: 'steady' }),
    { vcpus: 2 },
    (r) => emitted.push(r),
  );
  const recorder = new ShardRecorder({
    identity: { run: 'r', profileName: 'p', profileHash: 'h', segment: 0, segments: 1 },
    workers: 2,
    run: shardRun(),
  });
  for (const s of arrival) {
    tl.add(s);
    recorder.second(s);
  }
  tl.flush();
  recorder.step({ step: 0, window: WINDOW, complete: true, collected: [] });
  return { tl, emitted, shard: recorder.shard };
}

/** rtcap merge's path: the shard's lines merged and replayed. */
function merged(arrival: readonly SecondStats[]): Timeline {
  return replayTimeline(mergeShards([live(arrival).shard]), { vcpus: 2 }, () => undefined);
}

describe('a late per-second line', () => {
  it("counts in its own second in the run's step figures and in rtcap merge's alike", () => {
    const onTime = figures(live(ON_TIME).tl);
    expect(onTime.rates.delivered_per_s_60s_max).toBe(30);
    expect(onTime.broadcast60sMax).toBe(30);
    expect(onTime.rates.delivered_per_s).toBe(20);
    expect(onTime.seconds.slice(0, 4)).toEqual([
      [100, 0, 0, 20],
      [101, 60, 30, 30],
      [102, 20, 26.7, 30],
      [103, 20, 25, 30],
    ]);
    const run = live(LATE);
    // The line was late: the live timeline (timeseries.ndjson) counted it in second 102.
    const p102 = run.emitted.find((r) => r.point.t === 102)!.point;
    expect([p102.late_lines, p102.delivered_per_s]).toEqual([1, 70]);
    expect(figures(run.tl)).toEqual(onTime);
    expect(figures(merged(LATE))).toEqual(onTime);
    expect(figures(merged(ON_TIME))).toEqual(onTime);
  });

  it('of a second no other line had joins the step figures in order, as merge has it', () => {
    const run = live(BEFORE_FIRST);
    expect(run.tl.seconds.map((r) => r.point.t)).toEqual([
      99, 100, 101, 102, 103, 104, 105, 106, 107, 108,
    ]);
    expect(run.tl.seconds.map((r) => r.point.delivered_per_s_60s).slice(0, 3)).toEqual([
      40, 20, 33.3,
    ]);
    expect(figures(run.tl)).toEqual(figures(merged(BEFORE_FIRST)));
  });

  it('that covers several seconds is spread over them, in the run and in rtcap merge alike', () => {
    const onTime = figures(live(ON_TIME).tl);
    const run = live(SPREAD);
    expect(figures(run.tl)).toEqual(onTime);
    expect(figures(merged(SPREAD))).toEqual(onTime);
    // Each second it covered says one of its lines was a piece of a spread one.
    const spread = run.emitted.map((r) => [
      r.point.t,
      r.point.delivered_per_s,
      r.point.spread_lines,
    ]);
    expect(spread.slice(2, 7)).toEqual([
      [102, 20, undefined],
      [103, 20, 1],
      [104, 20, 1],
      [105, 20, 1],
      [106, 20, undefined],
    ]);
  });
});
