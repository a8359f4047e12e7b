import { describe, expect, it } from 'vitest';
import {
  insertSegmentOf,
  ownershipOf,
  parseSegment,
  segmentPlan,
  senderSegmentOf,
} from '../../src/generator/segment.js';
import { profileFrom } from '../support/profiles.js';
import { getScenario } from '../../src/scenarios/index.js';
import type { StepPlan } from '../../src/scenarios/types.js';

describe('segments', () => {
  it('parses i/N and refuses the rest in one line', () => {
    expect(parseSegment('2/3')).toEqual({ index: 2, count: 3 });
    expect(parseSegment('3/3')).toMatch(/i must be 0 … N−1/);
    expect(parseSegment('x')).toMatch(/give i\/N/);
  });

  it('3 segments × 2 processes own every connection exactly once, c mod 3 in segment c mod 3', () => {
    const owners = [0, 1, 2].flatMap((s) =>
      [0, 1].map((w) => ({ s, ...ownershipOf({ index: s, count: 3 }, w, 2) })),
    );
    for (let c = 0; c < 600; c++) {
      const mine = owners.filter((o) => c % o.owners === o.owner);
      expect(mine.length).toBe(1);
      expect(mine[0].s).toBe(c % 3);
    }
  });

  it('relay traffic: every segment sends, the union is the one-machine plan (same streams, seqs, schedule; each message once)', () => {
    const profile = profileFrom({
      name: 'p',
      scenario: 'broadcast-public',
      load: { steps: [{ connections: 30, send_rate: 10, duration: 3 }] },
    });
    const plan = getScenario('broadcast-public').plan(profile, 0);
    expect(segmentPlan(plan, 1)).toBe(plan);
    const split = segmentPlan(plan, 3);
    const owners = [0, 1, 2].map((s) => ownershipOf({ index: s, count: 3 }, 0, 1));
    const bySegment = [0, 0, 0];
    for (let k = 0; k < plan.broadcasts!.count; k++) {
      const one = plan.broadcasts!.senderOf(k);
      const s = split.broadcasts!.senderOf(k);
      expect({ stream: s.stream, seq: s.seq }).toEqual({ stream: one.stream, seq: one.seq });
      const segment = owners.findIndex((o) => s.conn % o.owners === o.owner);
      bySegment[segment]++;
      // The receiver side agrees on who sent it.
      expect(senderSegmentOf(split, 3)(s.stream, s.seq)).toBe(segment);
    }
    expect(bySegment).toEqual([10, 10, 10]);
    expect(bySegment.reduce((a, b) => a + b)).toBe(plan.broadcasts!.count);
  });

  it("per-connection streams keep their sender; a stream is sent from its connection's segment", () => {
    const profile = profileFrom({
      name: 'p',
      scenario: 'broadcast-private',
      load: { steps: [{ connections: 12, rooms: 3, send_rate: 6, duration: 2 }] },
    });
    const plan: StepPlan = getScenario('broadcast-private').plan(profile, 0);
    const split = segmentPlan(plan, 3);
    const of = senderSegmentOf(split, 3);
    const seen = new Set<number>();
    for (let k = 0; k < plan.broadcasts!.count; k++) {
      const s = split.broadcasts!.senderOf(k);
      expect(s).toEqual(plan.broadcasts!.senderOf(k));
      expect(of(s.stream, s.seq)).toBe(s.conn % 3);
      seen.add(s.conn % 3);
    }
    expect([...seen].sort()).toEqual([0, 1, 2]);
  });

  it('insert streams are split over the segments, each stream on one', () => {
    expect([0, 1, 2, 3].map((n) => insertSegmentOf(200_000 + n, 3))).toEqual([0, 1, 2, 0]);
    expect(insertSegmentOf(200_003, 1)).toBe(0);
  });
});
