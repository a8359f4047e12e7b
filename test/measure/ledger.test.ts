import { describe, expect, it } from 'vitest';
import { ReceiveLedger } from '../../src/measure/ledger.js';
import { newMemberState, type MemberState } from '../../src/measure/member-state.js';
import { SendLedger } from '../../src/measure/send-ledger.js';
import { KIND_STRIDE, STREAM_STRIDE, streamId } from '../../src/measure/stream-id.js';
import { percentilesOf } from '../../src/measure/histogram.js';
import { SEQ_WINDOW_BITS } from '../../src/measure/seq-window.js';

const joinedAt = (ms: number): MemberState => ({ ...newMemberState(), joinedAtMs: ms });

describe('streamId', () => {
  it('scopes local streams by step', () => {
    expect(streamId(0, 5)).toBe(5);
    expect(streamId(3, 5)).toBe(3 * STREAM_STRIDE + 5);
  });
});

describe('ReceiveLedger', () => {
  it('records a delivery: count, first and last receive time, latency', () => {
    const l = new ReceiveLedger();
    l.beginStep(2);
    const m = joinedAt(1000);
    l.record(m, streamId(2, 4), 0, 1500, 1510, 100);
    const snap = l.snapshot();
    expect(snap.received).toBe(1);
    expect(snap.streams).toEqual([
      {
        stream: 4,
        count: Uint32Array.from([1]),
        first: Float64Array.from([1510]),
        last: Float64Array.from([1510]),
      },
    ]);
    const p = percentilesOf(snap.deliveryHistogram);
    expect(p.count).toBe(1);
    // HDR with 3 significant digits: within 0.1 %.
    expect(p.p50).toBeGreaterThanOrEqual(10);
    expect(p.p50).toBeLessThanOrEqual(10.01);
  });

  it('several members hearing one message: count, earliest first, latest last whatever the order', () => {
    const l = new ReceiveLedger();
    l.beginStep(0);
    const s = streamId(0, 0);
    l.record(joinedAt(1), s, 0, 100, 130, 10);
    l.record(joinedAt(1), s, 0, 100, 110, 10);
    l.record(joinedAt(1), s, 0, 100, 150, 10);
    const [r] = l.snapshot().streams;
    expect([r.count[0], r.first[0], r.last[0]]).toEqual([3, 110, 150]);
  });

  it('in order: every receipt a delivery, none reordered or duplicate', () => {
    const l = new ReceiveLedger();
    l.beginStep(0);
    const m = joinedAt(1);
    for (let seq = 0; seq < 1000; seq++) l.record(m, streamId(0, 0), seq, 10, 11, 1);
    expect(l.snapshot()).toMatchObject({ received: 1000, reordered: 0, duplicates: 0 });
  });

  it('a repeat of the same (stream, seq) on the same connection is a duplicate, and only that', () => {
    const l = new ReceiveLedger();
    l.beginStep(0);
    const m = joinedAt(1);
    const s = streamId(0, 0);
    l.record(m, s, 0, 10, 11, 1);
    l.record(m, s, 0, 10, 12, 1); // repeat
    l.record(m, s, 1, 10, 13, 1);
    l.record(joinedAt(1), s, 1, 10, 13, 1); // another connection: a delivery of its own
    const snap = l.snapshot();
    expect(snap).toMatchObject({ received: 3, reordered: 0, duplicates: 1 });
    expect(Array.from(snap.streams[0].count)).toEqual([1, 2]);
  });

  it('a reordering within the window is a delivery counted as reordered, its repeat a duplicate', () => {
    const l = new ReceiveLedger();
    l.beginStep(0);
    const m = joinedAt(1);
    const s = streamId(0, 0);
    for (const seq of [0, 2, 3, 1, 4, 1]) l.record(m, s, seq, 10, 11, 1);
    const snap = l.snapshot();
    expect(snap).toMatchObject({ received: 5, reordered: 1, duplicates: 1 });
    expect(Array.from(snap.streams[0].count)).toEqual([1, 1, 1, 1, 1]);
  });

  it('a late arrival far outside the window is still a reordered delivery; a far repeat a duplicate', () => {
    const l = new ReceiveLedger();
    l.beginStep(0);
    const m = joinedAt(1);
    const s = streamId(0, 0);
    const far = 3 * SEQ_WINDOW_BITS;
    for (let seq = 0; seq <= far; seq++) if (seq !== 7) l.record(m, s, seq, 10, 11, 1);
    l.record(m, s, 7, 10, 11, 1); // late by far more than the window
    l.record(m, s, 7, 10, 11, 1); // and again
    l.record(m, s, 8, 10, 11, 1); // a seq seen long ago, far below the window
    const snap = l.snapshot();
    expect(snap).toMatchObject({ received: far + 1, reordered: 1, duplicates: 2 });
    expect(snap.streams[0].count[7]).toBe(1);
  });

  it('a delivery to a connection not yet joined, or sent before it joined, is unexpected', () => {
    const l = new ReceiveLedger();
    l.beginStep(0);
    const s = streamId(0, 0);
    l.record(newMemberState(), s, 0, 100, 101, 1); // not joined
    const m = joinedAt(1000);
    l.record(m, s, 1, 999.999, 1001, 1); // scheduled before the join
    l.record(m, s, 2, 1000, 1002, 1); // scheduled exactly at the join: expected
    const snap = l.snapshot();
    expect(snap.unexpected).toBe(2);
    expect(snap.received).toBe(1);
    expect(Array.from(snap.streams[0].count)).toEqual([0, 0, 1]);
  });

  it('receipts of other steps are stale, earlier or later, and never counted', () => {
    const l = new ReceiveLedger();
    l.beginStep(2);
    const m = joinedAt(1);
    l.record(m, streamId(1, 0), 0, 10, 11, 1);
    l.record(m, streamId(1, STREAM_STRIDE - 1), 0, 10, 11, 1);
    l.record(m, streamId(3, 0), 0, 10, 11, 1);
    l.record(m, streamId(2, 0), 0, 10, 11, 1);
    const snap = l.snapshot();
    expect(snap.stale).toBe(3);
    expect(snap.received).toBe(1);
    expect(snap.streams.map((s) => s.stream)).toEqual([0]);
  });

  it('beginStep clears the previous step: counters, streams and histogram', () => {
    const l = new ReceiveLedger();
    l.beginStep(0);
    const m = joinedAt(1);
    l.record(m, streamId(0, 0), 0, 10, 11, 1);
    l.record(m, streamId(0, 0), 0, 10, 11, 1);
    l.record(m, streamId(5, 0), 0, 10, 11, 1);
    l.beginStep(1);
    const snap = l.snapshot();
    expect(snap).toMatchObject({
      received: 0,
      reordered: 0,
      duplicates: 0,
      unexpected: 0,
      stale: 0,
      streams: [],
      duplicatesByKind: [0, 0, 0],
      reorderedByKind: [0, 0, 0],
    });
    expect(snap.deliveryHistogram.totalCount).toBe(0);
    // The same member now hears the new step's stream from seq 0 again.
    l.record(m, streamId(1, 0), 0, 10, 11, 1);
    expect(l.snapshot().received).toBe(1);
    expect(l.snapshot().duplicates).toBe(0);
  });

  it('counts reordered and duplicate receipts by traffic kind too', () => {
    const l = new ReceiveLedger();
    l.beginStep(0);
    const m = joinedAt(1);
    const broadcast = streamId(0, 3);
    const presence = streamId(0, KIND_STRIDE + 3);
    // Broadcast: 0, 2, 1 (reordered), 1 again (duplicate). Presence: 0, 0 (duplicate), 1.
    for (const seq of [0, 2, 1, 1]) l.record(m, broadcast, seq, 10, 11, 1);
    for (const seq of [0, 0, 1]) l.record(m, presence, seq, 10, 11, 1);
    const snap = l.snapshot();
    expect(snap).toMatchObject({
      received: 5,
      reordered: 1,
      duplicates: 2,
      reorderedByKind: [1, 0, 0],
      duplicatesByKind: [1, 1, 0],
    });
  });

  it('a connection hearing several streams keeps the order per stream', () => {
    const l = new ReceiveLedger();
    l.beginStep(0);
    const m = joinedAt(1);
    const [a, b, c] = [streamId(0, 0), streamId(0, 1), streamId(0, 7)];
    const seq: Array<[number, number]> = [
      [a, 0],
      [b, 1],
      [c, 5],
      [a, 1],
      [b, 0], // reordered in b (after b 1), whatever a and c did in between
      [c, 6],
      [b, 2],
      [a, 1], // duplicate of a
      [b, 0], // duplicate of b
      [c, 5], // duplicate of c
      [a, 2],
      [c, 4], // reordered in c
    ];
    for (const [s, q] of seq) l.record(m, s, q, 10, 11, 1);
    const snap = l.snapshot();
    expect(snap).toMatchObject({ received: 9, reordered: 2, duplicates: 3 });
    const byStream = new Map(snap.streams.map((s) => [s.stream, Array.from(s.count)]));
    expect(byStream.get(0)).toEqual([1, 1, 1]);
    expect(byStream.get(1)).toEqual([1, 1, 1]);
    expect(byStream.get(7)).toEqual([0, 0, 0, 0, 1, 1, 1]);
  });

  it('what a connection received resets at the step boundary, for every member', () => {
    const l = new ReceiveLedger();
    l.beginStep(0);
    const members = Array.from({ length: 3 }, () => joinedAt(1));
    for (const m of members)
      for (let seq = 0; seq < 10; seq++) l.record(m, streamId(0, 0), seq, 10, 11, 1);
    l.beginStep(1);
    // Same local stream and seqs in the next step: new deliveries, in order.
    for (const m of members)
      for (let seq = 0; seq < 10; seq++) l.record(m, streamId(1, 0), seq, 10, 11, 1);
    expect(l.snapshot()).toMatchObject({ received: 30, reordered: 0, duplicates: 0, stale: 0 });
  });

  it('grows beyond 64 messages per stream without losing earlier receipts', () => {
    const l = new ReceiveLedger();
    l.beginStep(0);
    const members = [joinedAt(1), joinedAt(1)];
    for (let seq = 0; seq < 300; seq++) {
      for (const [i, m] of members.entries())
        l.record(m, streamId(0, 0), seq, seq + 1, seq + 2 + i, 1);
    }
    // A jump far past the current capacity.
    l.record(members[0], streamId(0, 0), 5000, 5000, 5003, 1);
    const [r] = l.snapshot().streams;
    expect(r.count.length).toBe(5001);
    for (const seq of [0, 63, 64, 65, 127, 128, 299]) {
      expect([r.count[seq], r.first[seq], r.last[seq]], `seq ${seq}`).toEqual([
        2,
        seq + 2,
        seq + 3,
      ]);
    }
    expect(r.count.slice(300, 5000).every((c) => c === 0)).toBe(true);
    expect([r.count[5000], r.first[5000], r.last[5000]]).toEqual([1, 5003, 5003]);
    expect(l.snapshot().received).toBe(601);
  });

  it('snapshot arrays are trimmed copies: later receipts do not change them', () => {
    const l = new ReceiveLedger();
    l.beginStep(0);
    const m = joinedAt(1);
    l.record(m, streamId(0, 0), 0, 10, 11, 1);
    const snap = l.snapshot();
    l.record(joinedAt(1), streamId(0, 0), 0, 10, 12, 1);
    expect(snap.streams[0].count.length).toBe(1);
    expect(snap.streams[0].count[0]).toBe(1);
  });

  it('takeSecond reports and resets the per-second receipts, bytes and latency', () => {
    const l = new ReceiveLedger();
    l.beginStep(0);
    const m = joinedAt(1);
    l.record(m, streamId(0, 0), 0, 100, 102, 50);
    l.record(m, streamId(0, 0), 1, 100, 104, 50);
    l.record(m, streamId(9, 0), 0, 100, 104, 25); // stale: bytes arrived all the same
    const s1 = l.takeSecond();
    expect(s1.received).toBe(2);
    expect(s1.bytes).toBe(125);
    expect(percentilesOf(s1.histogram).count).toBe(2);
    expect(percentilesOf(s1.histogram).max).toBeCloseTo(4, 2);
    const s2 = l.takeSecond();
    expect(s2).toMatchObject({ received: 0, bytes: 0 });
    expect(s2.histogram.totalCount).toBe(0);
    // The step histogram still holds both.
    expect(l.snapshot().deliveryHistogram.totalCount).toBe(2);
  });
});

describe('SendLedger', () => {
  it('counts sent, late (strictly over the threshold) and failed', () => {
    const l = new SendLedger(5);
    l.record(0, 0, 1000, 1002);
    l.record(0, 1, 1010, 1015); // exactly at the threshold: not late
    l.record(0, 2, 1020, 1025.001); // over it
    l.record(0, 3, 1030, NaN); // could not be sent
    expect({
      sent: l.sent,
      late: l.late,
      failed: l.failed,
      sentThisSecond: l.sentThisSecond,
    }).toEqual({ sent: 3, late: 1, failed: 1, sentThisSecond: 3 });
    const [s] = l.snapshot();
    expect(s.stream).toBe(0);
    expect(Array.from(s.sched)).toEqual([1000, 1010, 1020, 1030]);
    expect(Array.from(s.actual)).toEqual([1002, 1015, 1025.001, NaN]);
  });

  it('a seq never recorded reads as sched 0 and actual NaN (a gap), past growth too', () => {
    const l = new SendLedger(5);
    l.record(3, 0, 1, 1);
    l.record(3, 200, 2, 2);
    const [s] = l.snapshot();
    expect(s.sched.length).toBe(201);
    expect(s.sched[100]).toBe(0);
    expect(s.actual[100]).toBeNaN();
    expect([s.sched[200], s.actual[200]]).toEqual([2, 2]);
    expect([s.sched[0], s.actual[0]]).toEqual([1, 1]);
  });

  it('keeps streams apart and beginStep clears them and takes the new threshold', () => {
    const l = new SendLedger(5);
    l.record(0, 0, 0, 1);
    l.record(1, 0, 0, 1);
    expect(
      l
        .snapshot()
        .map((s) => s.stream)
        .sort(),
    ).toEqual([0, 1]);
    l.beginStep(100);
    expect(l.snapshot()).toEqual([]);
    expect({ sent: l.sent, late: l.late, failed: l.failed }).toEqual({
      sent: 0,
      late: 0,
      failed: 0,
    });
    l.record(0, 0, 0, 50);
    expect(l.late).toBe(0);
  });
});
