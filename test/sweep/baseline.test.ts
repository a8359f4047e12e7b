/**
 * The recovery probe's baseline: for a rate search the probe after the first stable step; for a
 * search that changes how many members the probe fans out to (connections, members,
 * subscribers, rooms) the probe after the stable step of the highest value at or below the last
 * step's, so a probe among 8,000 members is not held to a round trip measured among 2,000.
 */
import { describe, expect, it } from 'vitest';
import type { ProbeSample, RecoveryRecord } from '../../src/recovery/probe.js';
import type { SweepHistoryItem } from '../../src/sweep/history.js';
import type { SweepRecord } from '../../src/sweep/record.js';
import { baselineOf } from '../../src/sweep/steps.js';

const sample = (p50: number): ProbeSample => ({
  at: '2026-12-07T00:00:00Z',
  sent: 3,
  received: 3,
  p50_ms: p50,
  max_ms: p50,
  error: null,
});
const recovered = (p50: number): RecoveryRecord => ({
  baseline_step: null,
  baseline: null,
  probes: [sample(p50)],
  wait_ms: 100,
  recovered: true,
  note: null,
});

/** Steps 1–4 at 2,000, 4,000, 8,000 (broken), 6,000; the probes after steps 1 and 2 at rest. */
function search(driver: SweepRecord['driver']) {
  const record: SweepRecord = {
    driver,
    mode: 'search',
    points: [
      { step: 1, value: 2000, phase: 'grow' },
      { step: 2, value: 4000, phase: 'grow', recovery: recovered(170) },
      { step: 3, value: 8000, phase: 'grow', recovery: recovered(340) },
      { step: 4, value: 6000, phase: 'bisect', recovery: recovered(400) },
    ],
    stop_reason: null,
    knee: null,
    resumed_at: [],
  };
  const history: SweepHistoryItem[] = [
    { value: 2000, verdict: 'stable', phase: 'grow', step: 1 },
    { value: 4000, verdict: 'stable', phase: 'grow', step: 2 },
    { value: 8000, verdict: 'broken', phase: 'grow', step: 3 },
  ];
  return { record, history };
}

describe('baselineOf', () => {
  it('a connections search: the probe after the highest stable value at or below the last step', () => {
    const { record, history } = search('connections');
    // After 8,000 (broken): the probe that followed 4,000 (step 2), p50 340 ms.
    expect(baselineOf(record, history)).toEqual({ step: 2, sample: sample(340) });
    // After 4,000, its own probe not yet taken: the one that followed 2,000.
    const earlier = { ...record, points: record.points.slice(0, 2) };
    expect(baselineOf(earlier, history.slice(0, 2))).toEqual({ step: 1, sample: sample(170) });
    // After a stable 6,000 the probe before step 5 is being taken: 4,000's still stands.
    history.push({ value: 6000, verdict: 'stable', phase: 'bisect', step: 4 });
    expect(baselineOf(record, history)).toEqual({ step: 2, sample: sample(340) });
  });

  it('a rate search: the probe after the first stable step, whatever came after', () => {
    const { record, history } = search('send_rate');
    expect(baselineOf(record, history)).toEqual({ step: 1, sample: sample(170) });
  });

  it('no stable step followed by a recovered probe: no baseline', () => {
    const { record, history } = search('connections');
    record.points[1].recovery!.recovered = false;
    expect(baselineOf(record, history.slice(0, 1))).toBeNull();
    expect(baselineOf(record, history)).toEqual({ step: 2, sample: sample(340) });
  });
});
