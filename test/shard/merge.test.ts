import { describe, expect, it } from 'vitest';
import { ReceiveLedger } from '../../src/measure/ledger.js';
import { newMemberState, type MemberState } from '../../src/measure/member-state.js';
import { SendLedger } from '../../src/measure/send-ledger.js';
import { streamId } from '../../src/measure/stream-id.js';
import { percentilesOf } from '../../src/measure/histogram.js';
import { figuresByKind } from '../../src/figures/kinds.js';
import { mergeMemberships, streamInfoOf } from '../../src/figures/membership.js';
import { encodeReceipts, type StepCollected } from '../../src/generator/ipc.js';
import type { MemberInterval } from '../../src/measure/membership.js';
import type { StepPlan } from '../../src/scenarios/types.js';
import {
  SHARD_FORMAT,
  SHARD_VERSION,
  ShardError,
  type Shard,
  type ShardIdentity,
} from '../../src/shard/format.js';
import { encodeShard } from '../../src/shard/write.js';
import { decodeShard } from '../../src/shard/read.js';
import { mergeShards } from '../../src/shard/merge.js';
import { shardRun } from '../support/shard-run.js';
import { stepFrames } from '../../src/figures/frames.js';
import { senderSegmentOf } from '../../src/generator/segment.js';
import type { SenderMachines } from '../../src/measure/aggregate.js';

const STEP = 0;
const TOPIC = 'room-0';
const JOINED_AT = 1000;
/** Two segments; member m belongs to segment m mod 2; segment s sends stream s. */
const MEMBERS = 6;
const SEQS = 40;

function collectedOf(
  worker: number,
  recv: ReceiveLedger,
  sends: SendLedger,
  intervals: MemberInterval[],
): StepCollected {
  const snap = recv.snapshot();
  return {
    type: 'collected',
    worker,
    step: STEP,
    receipts: encodeReceipts(snap),
    sends: sends.snapshot(),
    sendStats: {
      scheduled: sends.sent + sends.failed,
      sent: sends.sent,
      failed: sends.failed,
      late: sends.late,
      unsent: 0,
    },
    membership: { [TOPIC]: intervals },
    connections: {
      opened: intervals.length,
      joined: intervals.length,
      failed: 0,
      disconnected: 0,
      openAtEnd: intervals.length,
      joinedAtEnd: intervals.length,
      lateJoins: 0,
      scheduledJoins: intervals.length,
      reconnects: 0,
      subscribed: 0,
    },
    joins: {
      ramp: {
        joined: intervals.length,
        firstReplyMs: JOINED_AT,
        lastReplyMs: JOINED_AT,
        behindSchedule: 0,
      },
      rejoins: 0,
    },
    joinLatencyHistogram: '',
    errors: {},
    errorClasses: {} as StepCollected['errorClasses'],
    acks: { acked: 0, errors: 0, unacked: 0, untracked: 0 } as unknown as StepCollected['acks'],
    ackLatencyHistogram: '',
    presenceReplies: { ok: 0, errors: 0 },
    commitLatencyHistogram: '',
    sendBufferPeakBytes: 0,
    lagP99Ms: null,
  };
}

/** A deterministic receipt pattern: some lost, some duplicated, some out of order. */
function receipts(): Array<{
  member: number;
  stream: number;
  seq: number;
  sched: number;
  recv: number;
}> {
  const out = [];
  for (let stream = 0; stream < 2; stream++) {
    for (let seq = 0; seq < SEQS; seq++) {
      const sched = 2000 + seq * 50;
      for (let member = 0; member < MEMBERS; member++) {
        if ((seq * 7 + member * 3 + stream) % 11 === 0) continue; // lost
        const recv = sched + 1 + ((seq * 13 + member * 5 + stream * 17) % 29);
        out.push({ member, stream, seq, sched, recv });
        // A duplicate.
        if ((seq + member) % 9 === 0) out.push({ member, stream, seq, sched, recv: recv + 3 });
      }
    }
  }
  // Every 7th receipt arrives after all the others: after higher seqs of its stream (reordered).
  return [...out.filter((_, i) => i % 7 !== 0), ...out.filter((_, i) => i % 7 === 0)];
}

function record(
  ledger: ReceiveLedger,
  states: Map<number, MemberState>,
  r: ReturnType<typeof receipts>[number],
): void {
  let m = states.get(r.member);
  if (!m) {
    m = newMemberState();
    m.joinedAtMs = JOINED_AT;
    states.set(r.member, m);
  }
  ledger.record(m, streamId(STEP, r.stream), r.seq, r.sched, r.recv, 100);
}

function sendLedger(stream: number): SendLedger {
  const s = new SendLedger(1000);
  s.beginStep(1000);
  for (let seq = 0; seq < SEQS; seq++) s.record(stream, seq, 2000 + seq * 50, 2000 + seq * 50 + 1);
  return s;
}

const identity = (segment: number, over: Partial<ShardIdentity> = {}): ShardIdentity => ({
  run: 'r1',
  profileName: 'p',
  profileHash: 'abc',
  segment,
  segments: 2,
  ...over,
});

function shardOf(
  segment: number,
  collected: StepCollected,
  over: Partial<ShardIdentity> = {},
): Shard {
  return {
    format: SHARD_FORMAT,
    version: SHARD_VERSION,
    identity: identity(segment, over),
    host: { hostname: `h${segment}`, workers: 1, startedAt: '' },
    run: shardRun(),
    steps: [
      {
        step: STEP,
        window: { rampStart: 0, rampEnd: 1000, steadyStart: 2000, steadyEnd: 4000, drainEnd: 5000 },
        complete: true,
        collected: [collected],
      },
    ],
    seconds: [],
  };
}

const plan = { streamInfo: () => ({ key: TOPIC, excludeSender: false }) } as unknown as StepPlan;
const interval = (): MemberInterval => ({ joinedAtMs: JOINED_AT, leftAtMs: Infinity });

function figuresOf(collected: StepCollected[], origin: SenderMachines | null = null) {
  const byKey = mergeMemberships(collected);
  const kinds = figuresByKind({
    collected,
    sends: collected.flatMap((c) => c.sends),
    primaryKind: 'broadcast',
    info: streamInfoOf(plan, byKey),
    origin,
  });
  const k = kinds.broadcast!;
  return {
    sent: k.figures.sent,
    expected: k.figures.expected,
    received: k.figures.received,
    lost: k.figures.lost,
    excess: k.figures.excess,
    firstLatency: percentilesOf(k.figures.firstLatency),
    fanout: percentilesOf(k.figures.fanoutSpan),
    everyReceipt: percentilesOf(k.deliveryHistogram),
    duplicates: collected.reduce((a, c) => a + c.receipts.duplicates, 0),
    reordered: collected.reduce((a, c) => a + c.receipts.reordered, 0),
  };
}

describe('mergeShards', () => {
  it("merging two segments' shards equals recording the union of their receipts in one ledger", () => {
    const all = receipts();
    const seg = [0, 1].map(() => ({
      ledger: new ReceiveLedger(),
      states: new Map<number, MemberState>(),
    }));
    const union = { ledger: new ReceiveLedger(), states: new Map<number, MemberState>() };
    for (const x of [...seg, union]) x.ledger.beginStep(STEP);
    for (const r of all) {
      record(seg[r.member % 2].ledger, seg[r.member % 2].states, r);
      record(union.ledger, union.states, r);
    }
    const half = Array.from({ length: MEMBERS / 2 }, interval);
    // Through the wire: encoded, decoded, merged (segment order given reversed on purpose).
    const shards = [1, 0].map((s) =>
      decodeShard(encodeShard(shardOf(s, collectedOf(0, seg[s].ledger, sendLedger(s), half)))),
    );
    const merged = mergeShards(shards);
    expect(merged.workers).toBe(2);
    expect(merged.steps[0].collected.map((c) => c.worker)).toEqual([0, 1]);

    // One process that received everything and sent both streams.
    const both = new SendLedger(1000);
    both.beginStep(1000);
    for (const stream of [0, 1])
      for (let seq = 0; seq < SEQS; seq++)
        both.record(stream, seq, 2000 + seq * 50, 2000 + seq * 50 + 1);
    const single = collectedOf(0, union.ledger, both, Array.from({ length: MEMBERS }, interval));

    const a = figuresOf(merged.steps[0].collected);
    const b = figuresOf([single]);
    expect(a).toEqual(b);
    // The pattern exercises what it claims to.
    expect(b.sent).toBe(2 * SEQS);
    // The senders are not members here, so every member is a recipient.
    expect(b.expected).toBe(2 * SEQS * MEMBERS);
    expect(b.lost).toBeGreaterThan(0);
    expect(b.duplicates).toBeGreaterThan(0);
    expect(b.reordered).toBeGreaterThan(0);
  });

  it("sums the frames rtcap could not use over every segment's processes, through the wire", () => {
    const withFrames = (segment: number) => {
      const c = collectedOf(0, new ReceiveLedger(), sendLedger(segment), [interval()]);
      c.frames = {
        nullPayload: 1,
        noStamp: 2,
        unknownEvent: 3 * segment,
        malformed: segment,
        oversized: 1,
      };
      return c;
    };
    const merged = mergeShards(
      [1, 0].map((s) => decodeShard(encodeShard(shardOf(s, withFrames(s))))),
    );
    expect(stepFrames(merged.steps[0].collected)).toEqual({
      unrecognised: { null_payload: 2, no_stamp: 4, unknown_event: 3 },
      malformed: 1,
      oversized: 2,
    });
  });

  it('keeps typed arrays, NaN and Infinity exact through encode and decode', () => {
    const c = collectedOf(0, new ReceiveLedger(), sendLedger(0), [interval()]);
    c.sends[0].actual[3] = NaN;
    const back = decodeShard(encodeShard(shardOf(0, c))).steps[0].collected[0];
    expect(back.sends[0].actual).toBeInstanceOf(Float64Array);
    expect(Number.isNaN(back.sends[0].actual[3])).toBe(true);
    expect(Array.from(back.sends[0].sched)).toEqual(Array.from(c.sends[0].sched));
    expect(back.membership[TOPIC][0].leftAtMs).toBe(Infinity);
  });

  it('refuses a shard of another run, another profile or another segment count', () => {
    const c = collectedOf(0, new ReceiveLedger(), sendLedger(0), [interval()]);
    expect(() =>
      mergeShards([shardOf(0, c), shardOf(1, c, { run: 'r2' })], ['a/shard.json', 'b/shard.json']),
    ).toThrow(/b\/shard\.json is of another run: run "r2"/);
    expect(() => mergeShards([shardOf(0, c), shardOf(1, c, { profileHash: 'def' })])).toThrow(
      /another profile/,
    );
    expect(() => mergeShards([shardOf(0, c), shardOf(1, c, { segments: 3 })])).toThrow(
      /splits the run into 3 segments/,
    );
  });

  it('names missing and repeated segments', () => {
    const c = collectedOf(0, new ReceiveLedger(), sendLedger(0), [interval()]);
    const three = { segments: 3 };
    expect(() => mergeShards([shardOf(1, c, three)])).toThrow(
      new ShardError(
        'missing segments 0, 2 of 3 (run "r1"): every segment\'s shard is needed for exact totals',
      ),
    );
    expect(() => mergeShards([shardOf(0, c), shardOf(0, c)], ['x', 'y'])).toThrow(
      /segment 0\/2 twice: x and y/,
    );
  });

  it('a step one segment cut short is cut short merged, its collect unanswered if any was', () => {
    const c = collectedOf(0, new ReceiveLedger(), sendLedger(0), [interval()]);
    const a = shardOf(0, c);
    const b = shardOf(1, c);
    b.steps[0] = {
      ...b.steps[0],
      complete: false,
      cut: { by: 'SIGINT', phase: 'steady', collected: false, collect_wait_ms: 5000 },
    };
    const merged = mergeShards([a, b]).steps[0];
    expect(merged.complete).toBe(false);
    expect(merged.cut).toEqual({
      by: 'SIGINT',
      phase: 'steady',
      collected: false,
      collect_wait_ms: 5000,
    });
    expect(mergeShards([a, shardOf(1, c)]).steps[0].cut).toBeUndefined();
  });

  it('refuses another format version', () => {
    const text = encodeShard(
      shardOf(0, collectedOf(0, new ReceiveLedger(), sendLedger(0), [interval()])),
    ).replace(`"version":${SHARD_VERSION}`, '"version":99');
    expect(() => decodeShard(text, 'old.json')).toThrow(
      `old.json: shard format version 99, this rtcap reads version ${SHARD_VERSION}`,
    );
  });

  it("a segment whose clock is 5 s ahead leaves merged latency equal to the same-machine receipts' (counts from every receipt)", () => {
    const SKEW_MS = 5000;
    // Stream s is sent by connection s, in segment s; segment 1's clock reads true time + SKEW_MS.
    const splitPlan = {
      connections: MEMBERS,
      broadcasts: null,
      presence: null,
      streamInfo: (local: number) => ({ key: TOPIC, excludeSender: false, sender: local }),
    } as unknown as StepPlan;
    const scopeOf = (segment: number) => ({
      segment,
      segments: 2,
      senderOf: (local: number) => local % 2,
    });
    const clock = (segment: number, trueMs: number) => trueMs + (segment === 1 ? SKEW_MS : 0);
    const all = receipts();
    const seg = [0, 1].map((s) => ({
      ledger: new ReceiveLedger(),
      states: new Map<number, MemberState>(),
      scope: scopeOf(s),
    }));
    for (const x of seg) x.ledger.beginStep(STEP, x.scope);
    const union = { ledger: new ReceiveLedger(), states: new Map<number, MemberState>() };
    const sameMachine = { ledger: new ReceiveLedger(), states: new Map<number, MemberState>() };
    union.ledger.beginStep(STEP);
    sameMachine.ledger.beginStep(STEP);
    for (const r of all) {
      const receiver = r.member % 2;
      // The stamp carries the sender's clock, the receive time the receiver's.
      record(seg[receiver].ledger, seg[receiver].states, {
        ...r,
        sched: clock(r.stream, r.sched),
        recv: clock(receiver, r.recv),
      });
      record(union.ledger, union.states, r);
      if (receiver === r.stream) record(sameMachine.ledger, sameMachine.states, r);
    }
    const skewedSends = (s: number) => {
      const l = new SendLedger(1000);
      l.beginStep(1000);
      for (let seq = 0; seq < SEQS; seq++)
        l.record(s, seq, clock(s, 2000 + seq * 50), clock(s, 2000 + seq * 50 + 1));
      return l;
    };
    const half = Array.from({ length: MEMBERS / 2 }, interval);
    const shards = [0, 1].map((s) =>
      decodeShard(encodeShard(shardOf(s, collectedOf(0, seg[s].ledger, skewedSends(s), half)))),
    );
    const collected = mergeShards(shards).steps[0].collected;
    expect(collected.map((c) => c.segment)).toEqual([0, 1]);
    const origin: SenderMachines = {
      processSegments: collected.map((c) => c.segment ?? 0),
      senderSegmentOf: senderSegmentOf(splitPlan, 2),
    };
    const merged = figuresOf(collected, origin);

    const both = new SendLedger(1000);
    both.beginStep(1000);
    for (const stream of [0, 1])
      for (let seq = 0; seq < SEQS; seq++)
        both.record(stream, seq, 2000 + seq * 50, 2000 + seq * 50 + 1);
    const whole = figuresOf([
      collectedOf(0, union.ledger, both, Array.from({ length: MEMBERS }, interval)),
    ]);
    const same = figuresOf([
      collectedOf(0, sameMachine.ledger, both, Array.from({ length: MEMBERS }, interval)),
    ]);

    // Latency: exactly the same-machine receipts' (true times), whatever the skew.
    expect(merged.firstLatency).toEqual(same.firstLatency);
    expect(merged.fanout).toEqual(same.fanout);
    expect(merged.everyReceipt).toEqual(same.everyReceipt);
    // Counts: every receipt, as one machine would count them.
    for (const k of [
      'sent',
      'expected',
      'received',
      'lost',
      'excess',
      'duplicates',
      'reordered',
    ] as const)
      expect(merged[k]).toBe(whole[k]);
    const other = collected.reduce((a, c) => a + (c.receipts.otherMachine ?? 0), 0);
    expect(other).toBeGreaterThan(0);
    expect(other + sameMachine.ledger.received).toBe(union.ledger.received);
    // Without the rule the skew shows: the test can fail.
    expect(figuresOf(collected).firstLatency.p99).not.toEqual(same.firstLatency.p99);
  });
});
