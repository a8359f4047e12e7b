/**
 * Burst planning: the largest fan-out of one broadcast into one generator
 * process, counted exactly from the plan's topics and the process that owns each connection;
 * processes added for `workers: auto` up to the cores; the warning before a step.
 */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BURST_MEMBERS_PER_PROCESS,
  burstsOf,
  burstWarning,
  countCpuList,
  planBurstWorkers,
} from '../../src/load/burst-plan.js';
import { loadProfile } from '../../src/profile/load.js';
import { getScenario } from '../../src/scenarios/index.js';
import type { StepPlan } from '../../src/scenarios/types.js';

/**
 * A plan with `connections` members spread over topics by `topicOf`, one broadcast a second unless
 * `quiet`.
 */
function plan(connections: number, topicOf: (c: number) => string, quiet = false): StepPlan {
  return {
    connections,
    topicOf,
    broadcasts: quiet
      ? null
      : { ratePerS: 1, count: 10, senderOf: (k: number) => ({ conn: 0, stream: 0, seq: k }) },
  } as unknown as StepPlan;
}
const one = () => 'realtime:bench';

describe('burstsOf', () => {
  it('counts the members of each topic in the process holding the most of them', () => {
    // 15,000 on one topic: 15,000 in one process, 7,500 in each of 2, 5,000 in each of 3.
    expect(burstsOf(plan(15_000, one), 1)).toEqual([
      { topic: 'realtime:bench', membersPerProcess: 15_000, members: 15_000 },
    ]);
    expect(burstsOf(plan(15_000, one), 2)[0].membersPerProcess).toBe(7_500);
    expect(burstsOf(plan(15_001, one), 2)[0].membersPerProcess).toBe(7_501);
    expect(burstsOf(plan(15_000, one), 3)[0].membersPerProcess).toBe(5_000);
  });

  it('follows the real ownership, not an even spread: topics that alternate like the processes stay whole', () => {
    // Topic = c mod 2 and process = c mod 2: each topic lives entirely in one process.
    const alt = (c: number) => `realtime:t${c % 2}`;
    expect(burstsOf(plan(24_000, alt), 2).map((b) => b.membersPerProcess)).toEqual([
      12_000, 12_000,
    ]);
    expect(burstsOf(plan(24_000, alt), 3).map((b) => b.membersPerProcess)).toEqual([4_000, 4_000]);
  });

  it("counts only this segment's connections, by their local process (c mod N·W)", () => {
    // Segment 1 of 2 holds the odd connections: 10,000 of 20,000; 2 local processes: 5,000 each.
    expect(burstsOf(plan(20_000, one), 1, { index: 1, count: 2 })).toEqual([
      { topic: 'realtime:bench', membersPerProcess: 10_000, members: 10_000 },
    ]);
    expect(burstsOf(plan(20_000, one), 2, { index: 1, count: 2 })[0].membersPerProcess).toBe(5_000);
  });

  it('a step without broadcasts has no burst', () => {
    expect(burstsOf(plan(30_000, one, true), 1)).toEqual([]);
  });
});

describe('planBurstWorkers', () => {
  it('adds processes until no broadcast reaches the threshold in one, within the cores', () => {
    const r = planBurstWorkers({ plans: [plan(15_000, one)], workers: 1, cores: 2 });
    expect(r.workers).toBe(2);
    expect(r.note).toContain('2 generator processes instead of 1');
    expect(r.note).toContain(
      'realtime:bench reaches 15,000 members of one process with 1, 7,500 with 2',
    );
    expect(planBurstWorkers({ plans: [plan(25_000, one)], workers: 1, cores: 8 }).workers).toBe(3);
  });

  it('stops at the cores: the fewest processes with the smallest burst there', () => {
    expect(planBurstWorkers({ plans: [plan(40_000, one)], workers: 1, cores: 2 }).workers).toBe(2);
    expect(planBurstWorkers({ plans: [plan(40_000, one)], workers: 1, cores: 1 })).toEqual({
      workers: 1,
      note: null,
    });
  });

  it('leaves the count alone below the threshold, without broadcasts, or when more processes do not help', () => {
    expect(
      planBurstWorkers({ plans: [plan(BURST_MEMBERS_PER_PROCESS - 1, one)], workers: 1, cores: 4 }),
    ).toEqual({ workers: 1, note: null });
    expect(planBurstWorkers({ plans: [plan(30_000, one, true)], workers: 1, cores: 4 })).toEqual({
      workers: 1,
      note: null,
    });
    // Every connection its own topic: no burst at all however many connections.
    expect(
      planBurstWorkers({ plans: [plan(30_000, (c) => `realtime:r${c}`)], workers: 2, cores: 4 }),
    ).toEqual({ workers: 2, note: null });
  });

  it('takes the worst step of the run', () => {
    expect(
      planBurstWorkers({
        plans: [plan(1_000, one), plan(12_000, one, true), plan(12_000, one)],
        workers: 1,
        cores: 4,
      }).workers,
    ).toBe(2);
  });
});

describe('burstWarning', () => {
  it('names the topic, its members per process, the processes and the cores, before the step', () => {
    const w = burstWarning(plan(30_000, one), 2, 2);
    expect(w).toContain(
      'one broadcast on realtime:bench reaches 15,000 members of one generator process (2 processes on 2 cores)',
    );
    expect(w).toContain(
      'about 4 generator processes on as many cores, this host gives the generator 2',
    );
    expect(burstWarning(plan(15_000, one), 1, 2)).toContain(
      'use more generator processes (--workers 2)',
    );
    expect(burstWarning(plan(15_000, one), 2, 2)).toBeNull();
  });

  it('profiles/connections-30k.yaml on a 2-core host: 15,000 members per process, said before the step', async () => {
    const { profile } = await loadProfile(
      resolve(import.meta.dirname, '../../profiles/connections-30k.yaml'),
    );
    const p = getScenario(profile.scenario).plan(profile, 0);
    expect(burstWarning(p, profile.load.workers as number, 2)).toContain(
      'realtime:bench reaches 15,000 members of one generator process (2 processes on 2 cores)',
    );
  });
});

describe('countCpuList', () => {
  it('counts taskset lists', () => {
    expect(countCpuList('0')).toBe(1);
    expect(countCpuList('0-1')).toBe(2);
    expect(countCpuList('0,2-3')).toBe(3);
    expect(countCpuList('a')).toBeNull();
  });
});
