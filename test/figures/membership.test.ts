import { describe, expect, it } from 'vitest';
import { membersAt, mergeMemberships, streamInfoOf } from '../../src/figures/membership.js';

describe('membership figures', () => {
  const perProcess: Array<{
    membership: Record<string, Array<{ joinedAtMs: number; leftAtMs: number }>>;
  }> = [
    {
      membership: {
        a: [{ joinedAtMs: 0, leftAtMs: Infinity }],
        'changes:g': [{ joinedAtMs: 0, leftAtMs: Infinity }],
      },
    },
    {
      membership: {
        a: [
          { joinedAtMs: 50, leftAtMs: 80 },
          { joinedAtMs: 200, leftAtMs: Infinity },
        ],
        b: [{ joinedAtMs: 10, leftAtMs: Infinity }],
      },
    },
  ];

  it('merges every process intervals per key', () => {
    const byKey = mergeMemberships(perProcess);
    expect([...byKey.keys()].sort()).toEqual(['a', 'b', 'changes:g']);
    expect(byKey.get('a')).toHaveLength(3);
  });

  it('counts members joined by the moment and not gone, never Postgres Changes subscriptions', () => {
    const byKey = mergeMemberships(perProcess);
    expect(membersAt(byKey, 60)).toBe(3); // a×2 (one leaves at 80), b
    expect(membersAt(byKey, 100)).toBe(2);
    expect(membersAt(byKey, 200)).toBe(3);
    expect(membersAt(byKey, 5)).toBe(1);
  });

  it('gives each stream the membership of its key and whether the sender counts', () => {
    const byKey = mergeMemberships(perProcess);
    const info = streamInfoOf(
      {
        streamInfo: (s: number) => ({ key: s === 1 ? 'a' : 'b', excludeSender: s === 2 }),
      } as never,
      byKey,
    );
    expect(info(1).membership.at(60)).toBe(2);
    expect(info(1).self).toBe(true);
    expect(info(2).membership.at(60)).toBe(1);
    expect(info(2).self).toBe(false);
    expect(info(1).membership).toBe(info(1).membership);
  });
});
