import { describe, expect, it } from 'vitest';
import { AckTracker, newAckCounts } from '../../src/generator/ack-tracker.js';

function tracker(timeoutMs = 1000, cap = 100) {
  const forgotten: string[] = [];
  const t = new AckTracker<string>(timeoutMs, (conn, ref) => forgotten.push(`${conn}/${ref}`), cap);
  const counts = newAckCounts();
  t.countInto(counts);
  return { t, counts, forgotten };
}

describe('AckTracker', () => {
  it('counts an ack once, with its latency from the scheduled send time', () => {
    const { t, counts } = tracker();
    const id = t.open('c1', 100, 130);
    t.bind(id, '7');
    expect(t.settle(id, true, 150)).toBe(50);
    // A second reply for the same push is not a second ack.
    expect(t.settle(id, true, 160)).toBeNull();
    expect(counts).toEqual({ ok: 1, errors: 0, unacked: 0, untracked: 0 });
    expect(t.takeSecond()).toBe(1);
    expect(t.takeSecond()).toBe(0);
  });

  it('a refused send is an ack error, not an ack', () => {
    const { t, counts } = tracker();
    t.settle(t.open('c1', 0, 0), false, 10);
    expect(counts).toEqual({ ok: 0, errors: 1, unacked: 0, untracked: 0 });
    expect(t.takeSecond()).toBe(0);
  });

  it('times out acks pending longer than the timeout (from the send), oldest first, and forgets them', () => {
    const { t, counts, forgotten } = tracker(1000);
    const a = t.open('c1', 0, 0);
    t.bind(a, '1');
    const b = t.open('c2', 400, 500);
    t.bind(b, '2');
    expect(t.expire(1000)).toBe(0);
    expect(t.expire(1001)).toBe(1);
    expect(forgotten).toEqual(['c1/1']);
    // A late answer to a timed-out ack does not count.
    expect(t.settle(a, true, 1100)).toBeNull();
    expect(t.settle(b, true, 1100)).toBe(700);
    expect(counts).toEqual({ ok: 1, errors: 0, unacked: 1, untracked: 0 });
  });

  it('is bounded: past the cap a send is counted untracked, and tracking resumes when room frees', () => {
    const { t, counts } = tracker(1000, 2);
    const a = t.open('c', 0, 0);
    t.open('c', 0, 0);
    expect(t.open('c', 0, 0)).toBe(0);
    expect(counts.untracked).toBe(1);
    expect(t.size).toBe(2);
    t.settle(a, true, 5);
    expect(t.open('c', 0, 0)).toBeGreaterThan(0);
    expect(counts).toEqual({ ok: 1, errors: 0, unacked: 0, untracked: 1 });
  });

  it('a send never written is not waited for', () => {
    const { t, counts } = tracker();
    t.cancel(t.open('c', 0, 0));
    t.endStep();
    expect(counts).toEqual({ ok: 0, errors: 0, unacked: 0, untracked: 0 });
  });

  it('at the end of a step every pending ack is counted unacked in that step, and the next step starts clean', () => {
    const { t, counts, forgotten } = tracker();
    t.bind(t.open('c', 0, 0), '3');
    t.bind(t.open('c', 0, 0), '4');
    t.endStep();
    expect(counts.unacked).toBe(2);
    expect(forgotten).toEqual(['c/3', 'c/4']);
    const next = newAckCounts();
    t.countInto(next);
    t.settle(t.open('c', 0, 0), true, 1);
    expect(next).toEqual({ ok: 1, errors: 0, unacked: 0, untracked: 0 });
    expect(counts.ok).toBe(0);
  });
});
