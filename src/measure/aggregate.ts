/**
 * Merges what every generator process recorded in a step into the step's message figures:
 * expected from membership at each message's scheduled send time, received summed over
 * processes, send-to-first-receive and fan-out span per message from the minimum and maximum
 * receive times over processes. Pure: data in, figures out.
 */
import { createHistogram, recordMs, type Histogram } from './histogram.js';
import type { Membership } from './membership.js';

/**
 * How soon after a message's scheduled time a member's drop explains its missing receipt: the
 * generator hears of a dead server's sockets (1006) as late as its event loop lets it, and a
 * message sent to the server in that moment had nowhere to go.
 */
export const DOWN_GRACE_MS = 1000;

export interface SendRecord {
  stream: number;
  sched: Float64Array;
  /** NaN where the send failed. */
  actual: Float64Array;
}

export interface ReceiptRecord {
  stream: number;
  count: Uint32Array;
  first: Float64Array;
  last: Float64Array;
}

export interface StreamInfo {
  /** The membership of the topic this stream sends to. */
  membership: Membership;
  /** Does the sender receive its own messages (then it counts as a recipient). */
  self: boolean;
  /** The connection that sends the stream, when known: its own drop explains no miss. */
  sender?: number | null;
}

/**
 * Which receipts a message's latency may use when the run was split over machines: those of
 * processes on the machine (segment) that sent it, whose clock took both times. Counts use
 * every process.
 */
export interface SenderMachines {
  /** Per process (the index of `receipts`): its segment. */
  processSegments: readonly number[];
  /** The segment that sent message (stream, seq). */
  senderSegmentOf(stream: number, seq: number): number;
}

export interface MessageFigures {
  sent: number;
  sendFailed: number;
  expected: number;
  received: number;
  /** Receipts beyond the expected count for a message (membership bookkeeping disagreeing). */
  excess: number;
  lost: number;
  /**
   * Receipts missing at members dropped (not by rtcap) within DOWN_GRACE_MS after the message's
   * scheduled time: not delivered because the connection went down (a server killed or
   * restarting), counted here and in neither expected nor lost — at most as many per message as
   * members dropped in that window.
   */
  notDeliveredConnectionDown: number;
  /** Messages with at least one expected recipient and no receipt at all. */
  messagesUnseen: number;
  /**
   * Messages received only on other machines than their sender's (split runs): counted, not in the
   * latency histograms.
   */
  messagesOnlyElsewhere: number;
  firstLatency: Histogram;
  firstLatencyFromActual: Histogram;
  fanoutSpan: Histogram;
  /** Per second of scheduled send time (epoch s): expected and received, for the timeline. */
  bySecond: Map<number, { expected: number; received: number }>;
}

/** Figures of a step in which nothing was sent. */
export function emptyFigures(): MessageFigures {
  return {
    sent: 0,
    sendFailed: 0,
    expected: 0,
    received: 0,
    excess: 0,
    lost: 0,
    notDeliveredConnectionDown: 0,
    messagesUnseen: 0,
    messagesOnlyElsewhere: 0,
    firstLatency: createHistogram(),
    firstLatencyFromActual: createHistogram(),
    fanoutSpan: createHistogram(),
    bySecond: new Map(),
  };
}

/**
 * One send record per stream: a stream sent from several processes (relay senders of a split
 * run, generator/segment) has each seq in exactly one of them, the others holding a gap there
 * (sched 0, actual NaN).
 */
export function mergeSendRecords(sends: readonly SendRecord[]): SendRecord[] {
  const byStream = new Map<number, SendRecord>();
  for (const s of sends) {
    const had = byStream.get(s.stream);
    if (!had) {
      byStream.set(s.stream, s);
      continue;
    }
    const n = Math.max(had.sched.length, s.sched.length);
    const sched = new Float64Array(n);
    const actual = new Float64Array(n).fill(NaN);
    for (const r of [had, s]) {
      for (let i = 0; i < r.sched.length; i++) {
        if (r.sched[i] === 0 && Number.isNaN(r.actual[i])) continue;
        sched[i] = r.sched[i];
        actual[i] = r.actual[i];
      }
    }
    byStream.set(s.stream, { stream: s.stream, sched, actual });
  }
  return byStream.size === sends.length ? [...sends] : [...byStream.values()];
}

type Merged = Map<number, { count: Uint32Array; first: Float64Array; last: Float64Array }>;

/**
 * Receipts by stream over processes: counts summed, first and last receive times the min and max.
 */
function mergeReceipts(receipts: readonly ReceiptRecord[][]): Merged {
  const merged: Merged = new Map();
  for (const perProcess of receipts) {
    for (const r of perProcess) {
      let m = merged.get(r.stream);
      if (!m) {
        m = {
          count: new Uint32Array(r.count.length),
          first: new Float64Array(r.count.length).fill(Infinity),
          last: new Float64Array(r.count.length).fill(-Infinity),
        };
        merged.set(r.stream, m);
      }
      if (r.count.length > m.count.length) {
        const n = r.count.length;
        const c = new Uint32Array(n);
        c.set(m.count);
        const f = new Float64Array(n).fill(Infinity);
        f.set(m.first);
        const l = new Float64Array(n).fill(-Infinity);
        l.set(m.last);
        m = { count: c, first: f, last: l };
        merged.set(r.stream, m);
      }
      for (let i = 0; i < r.count.length; i++) {
        const c = r.count[i];
        if (c === 0) continue;
        m.count[i] += c;
        if (r.first[i] < m.first[i]) m.first[i] = r.first[i];
        if (r.last[i] > m.last[i]) m.last[i] = r.last[i];
      }
    }
  }
  return merged;
}

/**
 * Where a message's latency starts. `scheduled` (the default): its scheduled send time, so a
 * generator behind schedule shows rather than hides (no coordinated omission). `actual`: when
 * the send was made — for Postgres Changes the row's commit, because the server cannot see a
 * row before it committed and the wait before it (rtcap's insert lanes and pool) is rtcap's
 * backlog, counted as an offered shortfall instead.
 */
export type LatencyOrigin = 'scheduled' | 'actual';

/** Split runs: per segment, the receipts of its own processes merged, for latency. */
function receiptsBySegment(
  receipts: readonly ReceiptRecord[][],
  origin: SenderMachines | null,
): Map<number, Merged> {
  const bySegment = new Map<number, Merged>();
  if (origin) {
    const segments = [...new Set(origin.processSegments)];
    for (const g of segments)
      bySegment.set(g, mergeReceipts(receipts.filter((_, p) => origin.processSegments[p] === g)));
  }
  return bySegment;
}

/**
 * One sent message's counts, `got` its receipts over processes: expected from the membership at
 * its scheduled time, less the members dropped right after it; received, excess and lost, in
 * total and in its second. Returns how many receipts were expected. No allocation but a new
 * second's entry.
 */
function countDelivery(out: MessageFigures, info: StreamInfo, sched: number, got: number): number {
  const members = info.membership.at(sched);
  const due = Math.max(0, info.self ? members : members - 1);
  const counted = Math.min(got, due);
  // Misses at members dropped right after the send: not delivered, the connection was down.
  const except = info.self ? null : (info.sender ?? null);
  const dropped = info.membership.droppedIn(sched, sched + DOWN_GRACE_MS, except);
  const down = Math.min(due - counted, dropped);
  const expected = due - down;
  out.notDeliveredConnectionDown += down;
  out.expected += expected;
  out.received += counted;
  out.excess += got - counted;
  out.lost += expected - counted;
  const sec = Math.floor(sched / 1000);
  let b = out.bySecond.get(sec);
  if (!b) out.bySecond.set(sec, (b = { expected: 0, received: 0 }));
  b.expected += expected;
  b.received += counted;
  return expected;
}

/** Receipts of streams nobody reports sending: they cannot be matched to a send. */
function unmatchedReceipts(merged: Merged, sentStreams: ReadonlySet<number>): number {
  let n = 0;
  for (const [stream, m] of merged) {
    if (sentStreams.has(stream)) continue;
    for (let i = 0; i < m.count.length; i++) n += m.count[i];
  }
  return n;
}

export function aggregateMessages(
  sendRecords: SendRecord[],
  receipts: ReceiptRecord[][],
  streamInfo: (stream: number) => StreamInfo,
  opts: { latencyFrom?: LatencyOrigin; origin?: SenderMachines | null } = {},
): MessageFigures {
  const { latencyFrom = 'scheduled', origin = null } = opts;
  const sends = mergeSendRecords(sendRecords);
  const merged = mergeReceipts(receipts);
  const bySegment = receiptsBySegment(receipts, origin);

  const out = emptyFigures();

  const seenStreams = new Set<number>();
  for (const s of sends) {
    seenStreams.add(s.stream);
    const info = streamInfo(s.stream);
    const m = merged.get(s.stream);
    for (let seq = 0; seq < s.sched.length; seq++) {
      const sched = s.sched[seq];
      const actual = s.actual[seq];
      const got = m && seq < m.count.length ? m.count[seq] : 0;
      // Receipts of a message never sent (gap or failed send) match no send: excess.
      if (sched === 0 && Number.isNaN(actual)) {
        out.excess += got;
        continue; // never scheduled (gap)
      }
      if (Number.isNaN(actual)) {
        out.sendFailed++;
        out.excess += got;
        continue;
      }
      out.sent++;
      const expected = countDelivery(out, info, sched, got);
      // Latency from the receipts on the sender's machine only (one machine: all of them).
      const own = origin ? bySegment.get(origin.senderSegmentOf(s.stream, seq))?.get(s.stream) : m;
      if (got > 0 && own && seq < own.count.length && own.count[seq] > 0) {
        const from = latencyFrom === 'actual' ? actual : sched;
        recordMs(out.firstLatency, own.first[seq] - from);
        recordMs(out.firstLatencyFromActual, own.first[seq] - actual);
        recordMs(out.fanoutSpan, own.last[seq] - from);
      } else if (got > 0) {
        out.messagesOnlyElsewhere++;
      } else if (expected > 0) {
        out.messagesUnseen++;
      }
    }
    // Receipts of seqs past the last one the sender reported match no send either.
    if (m) for (let seq = s.sched.length; seq < m.count.length; seq++) out.excess += m.count[seq];
  }
  out.excess += unmatchedReceipts(merged, seenStreams);
  return out;
}
