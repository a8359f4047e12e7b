import { describe, expect, it } from 'vitest';
import {
  aggregateMessages,
  type ReceiptRecord,
  type SendRecord,
  type StreamInfo,
} from '../../src/measure/aggregate.js';
import { Membership } from '../../src/measure/membership.js';
import { percentilesOf } from '../../src/measure/histogram.js';

const send = (stream: number, sched: number[], actual: number[]): SendRecord => ({
  stream,
  sched: Float64Array.from(sched),
  actual: Float64Array.from(actual),
});
const receipt = (
  stream: number,
  count: number[],
  first: number[],
  last: number[],
): ReceiptRecord => ({
  stream,
  count: Uint32Array.from(count),
  first: Float64Array.from(first),
  last: Float64Array.from(last),
});
const members = (...joinedAt: number[]) =>
  new Membership(joinedAt.map((j) => ({ joinedAtMs: j, leftAtMs: Infinity })));
const info =
  (membership: Membership, self = false) =>
  (): StreamInfo => ({ membership, self });

/** Latency assertions: HDR keeps 3 significant digits. */
const near = (v: number | null, expected: number) => {
  expect(v).not.toBeNull();
  expect(Math.abs(v! - expected)).toBeLessThanOrEqual(Math.max(0.002, expected * 0.001));
};

describe('aggregateMessages: expected', () => {
  it('counts members joined at the scheduled time, minus the sender', () => {
    // Sender joined at 0, three receivers at 0, one more joins at 1500.
    const m = members(0, 0, 0, 0, 1500);
    const f = aggregateMessages([send(0, [1000, 2000], [1000, 2000])], [], info(m));
    expect(f.sent).toBe(2);
    expect(f.expected).toBe(3 + 4);
  });

  it('counts the sender too when it receives its own messages (self)', () => {
    const m = members(0, 0, 0, 0, 1500);
    const f = aggregateMessages([send(0, [1000, 2000], [1000, 2000])], [], info(m, true));
    expect(f.expected).toBe(4 + 5);
  });

  it('uses the scheduled time, not the actual one', () => {
    const m = members(0, 0, 1005);
    const f = aggregateMessages([send(0, [1000], [1010])], [], info(m));
    expect(f.expected).toBe(1);
  });

  it('never goes negative when the sender is not (yet) a member', () => {
    const f = aggregateMessages([send(0, [1000], [1000])], [], info(members()));
    expect(f.expected).toBe(0);
    expect(f.lost).toBe(0);
    expect(f.messagesUnseen).toBe(0);
  });

  it('failed sends are counted apart and never expected', () => {
    const m = members(0, 0, 0);
    const f = aggregateMessages([send(0, [1000, 1010], [1000, NaN])], [], info(m));
    expect(f).toMatchObject({ sent: 1, sendFailed: 1, expected: 2, lost: 2 });
  });

  it('a miss at a member dropped within a second after the send is not delivered, not lost', () => {
    // Sender (joined at 0) and three members; two dropped by the server at 1,400 and 2,500.
    const m = new Membership([
      { joinedAtMs: 0, leftAtMs: Infinity },
      { joinedAtMs: 0, leftAtMs: Infinity },
      { joinedAtMs: 0, leftAtMs: 1_400, dropped: true },
      { joinedAtMs: 0, leftAtMs: 2_500, dropped: true },
    ]);
    // Message 0 at 1,000: one receipt of 3 due; the drop at 1,400 explains one miss, not two.
    // Message 1 at 1,300: none of 3; the drop at 1,400 explains one miss; 2,500 is too late.
    const f = aggregateMessages(
      [send(0, [1_000, 1_300], [1_000, 1_300])],
      [[receipt(0, [1, 0], [1_005, Infinity], [1_005, -Infinity])]],
      info(m),
    );
    expect(f).toMatchObject({ expected: 4, received: 1, lost: 3, notDeliveredConnectionDown: 2 });
  });

  it("a sender dropped right after its own message explains no receiver's miss", () => {
    // Sender 0 dropped by the server at 1,010, just after its message at 1,000; members 1-3
    // stayed and received nothing: 3 lost, none of them "connection down".
    const m = new Membership([
      { joinedAtMs: 0, leftAtMs: 1_010, dropped: true, conn: 0 },
      { joinedAtMs: 0, leftAtMs: Infinity },
      { joinedAtMs: 0, leftAtMs: Infinity },
      { joinedAtMs: 0, leftAtMs: Infinity },
    ]);
    const sends = [send(0, [1_000], [1_000])];
    const f = aggregateMessages(sends, [], () => ({ membership: m, self: false, sender: 0 }));
    expect(f).toMatchObject({ expected: 3, received: 0, lost: 3, notDeliveredConnectionDown: 0 });
    // A sender that receives its own messages is one of the recipients its drop explains.
    const own = aggregateMessages(sends, [], () => ({ membership: m, self: true, sender: 0 }));
    expect(own).toMatchObject({ expected: 3, lost: 3, notDeliveredConnectionDown: 1 });
  });

  it('a seq never scheduled (gap) is neither sent nor failed', () => {
    const m = members(0, 0, 0);
    const f = aggregateMessages([send(0, [1000, 0, 1020], [1000, NaN, 1020])], [], info(m));
    expect(f).toMatchObject({ sent: 2, sendFailed: 0, expected: 4 });
  });
});

describe('aggregateMessages: latency origin', () => {
  it('counts from the scheduled time by default, from the actual send when asked (Postgres Changes: the commit)', () => {
    const m = members(0, 0);
    // Scheduled at 1000, made (committed) at 1500 behind rtcap's own backlog, received at 1520.
    const sends = [send(0, [1000], [1500])];
    const receipts = [[receipt(0, [1], [1520], [1530])]];
    const fromScheduled = aggregateMessages(sends, receipts, info(m));
    near(percentilesOf(fromScheduled.firstLatency).p50, 520);
    near(percentilesOf(fromScheduled.fanoutSpan).p50, 530);
    const fromActual = aggregateMessages(sends, receipts, info(m), { latencyFrom: 'actual' });
    near(percentilesOf(fromActual.firstLatency).p50, 20);
    near(percentilesOf(fromActual.fanoutSpan).p50, 30);
    near(percentilesOf(fromActual.firstLatencyFromActual).p50, 20);
    // Expected still follows the membership at the scheduled time either way.
    expect(fromActual).toMatchObject({ expected: 1, received: 1, lost: 0 });
  });
});

describe('aggregateMessages: received, excess, lost', () => {
  it('received is capped at expected and the rest is excess', () => {
    const m = members(0, 0, 0); // 2 expected per message
    const f = aggregateMessages(
      [send(0, [1000, 2000, 3000], [1000, 2000, 3000])],
      [[receipt(0, [2, 3, 1], [1010, 2010, 3010], [1020, 2020, 3010])]],
      info(m),
    );
    expect(f).toMatchObject({ expected: 6, received: 5, excess: 1, lost: 1, messagesUnseen: 0 });
  });

  it('a message nobody received is lost and unseen', () => {
    const m = members(0, 0, 0);
    const f = aggregateMessages(
      [send(0, [1000, 2000], [1000, 2000])],
      [[receipt(0, [2], [1010], [1020])]],
      info(m),
    );
    expect(f).toMatchObject({ expected: 4, received: 2, lost: 2, messagesUnseen: 1 });
    expect(f.firstLatency.totalCount).toBe(1);
  });

  it('receipts of a stream nobody reports sending are excess', () => {
    const m = members(0, 0);
    const f = aggregateMessages(
      [send(0, [1000], [1000])],
      [[receipt(0, [1], [1001], [1001]), receipt(9, [4, 2], [1, 1], [1, 1])]],
      info(m),
    );
    expect(f).toMatchObject({ received: 1, excess: 6 });
  });

  it('receipts of a seq the sender never reported sending are excess, not dropped', () => {
    const m = members(0, 0);
    const f = aggregateMessages(
      [send(0, [1000], [1000])],
      [[receipt(0, [1, 3, 2], [1001, 1, 1], [1001, 1, 1])]],
      info(m),
    );
    expect(f).toMatchObject({ sent: 1, expected: 1, received: 1, excess: 5 });
  });

  it('receipts of a failed send are excess: the send is not expected', () => {
    const m = members(0, 0);
    const f = aggregateMessages(
      [send(0, [1000], [NaN])],
      [[receipt(0, [1], [1001], [1001])]],
      info(m),
    );
    expect(f).toMatchObject({ sent: 0, sendFailed: 1, expected: 0, received: 0, excess: 1 });
  });

  it('bySecond splits expected and received by the scheduled second', () => {
    const m = members(0, 0, 0);
    const f = aggregateMessages(
      [send(0, [1000, 1999.9, 2000], [1000, 2000, 2000])],
      [[receipt(0, [2, 1, 0], [1001, 2001, 0], [1002, 2001, 0])]],
      info(m),
    );
    expect(Object.fromEntries(f.bySecond)).toEqual({
      1: { expected: 4, received: 3 },
      2: { expected: 2, received: 0 },
    });
  });
});

describe('aggregateMessages: across processes', () => {
  it('sums counts and takes the earliest first and latest last receipt', () => {
    const m = members(0, 0, 0, 0); // 3 receivers
    const f = aggregateMessages(
      [send(0, [1000], [1004])],
      [[receipt(0, [2], [1010], [1020])], [receipt(0, [1], [1005], [1030])]],
      info(m),
    );
    expect(f).toMatchObject({ expected: 3, received: 3, lost: 0 });
    near(percentilesOf(f.firstLatency).max, 5); // 1005 - 1000
    near(percentilesOf(f.firstLatencyFromActual).max, 1); // 1005 - 1004
    near(percentilesOf(f.fanoutSpan).max, 30); // 1030 - 1000
  });

  it('merges processes whose arrays have different lengths', () => {
    const m = members(0, 0, 0);
    const sched = [1000, 2000, 3000, 4000, 5000];
    const f = aggregateMessages(
      [send(0, sched, sched)],
      [
        [receipt(0, [1, 1], [1001, 2001], [1001, 2001])],
        [receipt(0, [1, 0, 1, 1, 2], [1002, 0, 3003, 4004, 5005], [1002, 0, 3003, 4004, 5006])],
      ],
      info(m),
    );
    expect(f).toMatchObject({ expected: 10, received: 7, lost: 3, excess: 0, messagesUnseen: 0 });
    // Per message first latency: 1, 1, 3, 4, 5 ms; fan-out span: 2, 1, 3, 4, 6 ms.
    near(percentilesOf(f.firstLatency).max, 5);
    near(percentilesOf(f.fanoutSpan).max, 6);
    expect(f.firstLatency.totalCount).toBe(5);
  });

  it('a process holding no receipt for a message does not disturb first/last', () => {
    const m = members(0, 0, 0);
    const f = aggregateMessages(
      [send(0, [1000], [1000])],
      [[receipt(0, [0], [0], [0])], [receipt(0, [2], [1007], [1009])]],
      info(m),
    );
    near(percentilesOf(f.firstLatency).p50, 7);
    near(percentilesOf(f.fanoutSpan).p50, 9);
  });

  it('each stream is judged against its own topic', () => {
    const big = members(0, 0, 0, 0, 0);
    const small = members(0, 0);
    const f = aggregateMessages(
      [send(0, [1000], [1000]), send(1, [1000], [1000])],
      [[receipt(0, [4], [1001], [1001]), receipt(1, [1], [1001], [1001])]],
      (s) => ({
        membership: s === 0 ? big : small,
        self: false,
      }),
    );
    expect(f).toMatchObject({ expected: 5, received: 5, lost: 0, excess: 0 });
  });
});
