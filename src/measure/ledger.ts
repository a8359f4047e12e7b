/**
 * The delivery ledger (docs/FIGURES.md "Measurement rules"), its receive side. Each generator
 * process keeps:
 *  - per stream and sequence number: how many of its connections received the message, and
 *    the first and last receive times (so the coordinator can take the minimum and maximum
 *    over processes: send-to-first-receive and fan-out span);
 *  - per connection and stream, which seqs it received (seq-window.ts, kept in member-state.ts),
 *    so a second receipt is a duplicate and a late first receipt a reordered delivery, never a
 *    loss;
 *  - per step, a histogram of every receipt's latency.
 * What it sent is the send ledger's (send-ledger.ts).
 * Receive work per delivery is a few typed-array writes and one histogram record.
 *
 * Stream ids are step-scoped (stream-id.ts), so a straggler from an earlier step can never be
 * counted as a delivery of the current one: it is stale. So is a receipt that came after its
 * step was collected (closeStep) and before the next began: the next step counts it, since the
 * collected step's counts are gone with its state.
 */
import { Grow } from './grow.js';
import { createHistogram, recordMs, type Histogram } from './histogram.js';
import type { MemberState } from './member-state.js';
import { SEQ_DUPLICATE, SEQ_NEW, SEQ_REORDERED, SeqWindows, type SeqClass } from './seq-window.js';
import { KIND_COUNT, KIND_STRIDE, STREAM_STRIDE } from './stream-id.js';

/** Each ledger step gets an epoch no member state of an earlier step can carry. */
let nextEpoch = 0;

/**
 * Whose receipts a segment's latency may use: only those whose sender ran on this
 * machine, since other machines' clocks differ. `senderOf(local)`: the segment sending a local
 * stream, or SENDER_BY_SEQ when seq mod segments says (generator/segment).
 */
export interface LatencyScope {
  segment: number;
  segments: number;
  senderOf(localStream: number): number;
}

/** StreamReceipts.sender: a one-machine run, every receipt's sender is here. */
const SENDER_HERE = -2;
export const SENDER_BY_SEQ = -1;

export class StreamReceipts {
  /** The segment sending this stream (SENDER_HERE, SENDER_BY_SEQ or a segment). */
  constructor(readonly sender = SENDER_HERE) {}
  count = new Uint32Array(64);
  first = new Float64Array(64);
  last = new Float64Array(64);
  /** One past the highest seq seen. */
  size = 0;

  add(seq: number, recvMs: number): void {
    if (seq >= this.count.length) {
      const need = seq + 1;
      this.count = Grow.u32(this.count, need);
      this.first = Grow.f64(this.first, need);
      this.last = Grow.f64(this.last, need);
    }
    if (this.count[seq]++ === 0) {
      this.first[seq] = recvMs;
      this.last[seq] = recvMs;
    } else {
      if (recvMs < this.first[seq]) this.first[seq] = recvMs;
      if (recvMs > this.last[seq]) this.last[seq] = recvMs;
    }
    if (seq >= this.size) this.size = seq + 1;
  }
}

export interface ReceiptsSnapshot {
  /** Local stream index → arrays trimmed to size. */
  streams: Array<{ stream: number; count: Uint32Array; first: Float64Array; last: Float64Array }>;
  received: number;
  /** Of `received`: deliveries that arrived after a higher seq of their stream. */
  reordered: number;
  /**
   * Of `received`: receipts whose sender ran on another machine (segment): counted, not in the
   * latency histograms.
   */
  otherMachine: number;
  duplicates: number;
  /** `reordered` and `duplicates` by traffic kind (broadcast, presence, changes). */
  reorderedByKind: number[];
  duplicatesByKind: number[];
  unexpected: number;
  stale: number;
  deliveryHistogram: Histogram;
  /** The same by traffic kind (broadcast, presence, changes). */
  kindHistograms: Histogram[];
}

export class ReceiveLedger {
  private streams: Array<StreamReceipts | undefined> = [];
  private base = 0;
  private epoch = nextEpoch++;
  private readonly windows = new SeqWindows();
  private hist: Histogram = createHistogram();
  private kindHists: Histogram[] = Array.from({ length: KIND_COUNT }, createHistogram);
  /** Per-second view for the timeline; reset by takeSecond(). */
  private secondHist: Histogram = createHistogram();
  private scope: LatencyScope | null = null;
  received = 0;
  reordered = 0;
  otherMachine = 0;
  duplicates = 0;
  private reorderedByKind: number[] = new Array<number>(KIND_COUNT).fill(0);
  private duplicatesByKind: number[] = new Array<number>(KIND_COUNT).fill(0);
  unexpected = 0;
  stale = 0;
  receivedThisSecond = 0;
  /** This second's deliveries by traffic kind (the per-kind rates count by receive time). */
  private receivedByKindThisSecond: number[] = new Array<number>(KIND_COUNT).fill(0);
  bytesThisSecond = 0;
  /** Receipts recorded when the step was collected (closeStep); null while it is not. */
  private recordsAtClose: number | null = null;

  /** Every receipt recorded in the step, whatever it was counted as. */
  private get records(): number {
    return this.received + this.duplicates + this.unexpected + this.stale;
  }

  /**
   * The step was collected: what is recorded from now until the next beginStep came too late for
   * it, and is counted stale in the next step.
   */
  closeStep(): void {
    this.recordsAtClose = this.records;
  }

  /**
   * Starts a step: receipts of other steps' streams are stale from now on, and so are those
   * recorded since the previous step was collected.
   */
  beginStep(step: number, scope: LatencyScope | null = null): void {
    const late = this.recordsAtClose === null ? 0 : this.records - this.recordsAtClose;
    this.recordsAtClose = null;
    this.base = step * STREAM_STRIDE;
    this.scope = scope && scope.segments > 1 ? scope : null;
    this.epoch = nextEpoch++;
    this.windows.reset();
    this.streams = [];
    this.hist.reset();
    for (const h of this.kindHists) h.reset();
    this.received = this.reordered = this.otherMachine = this.duplicates = this.unexpected = 0;
    this.stale = late;
    this.reorderedByKind = new Array<number>(KIND_COUNT).fill(0);
    this.duplicatesByKind = new Array<number>(KIND_COUNT).fill(0);
  }

  /**
   * One delivery. `sentAtMs` is the scheduled send time from the stamp. A receipt for a
   * message scheduled before this connection became a member (`memberSinceMs`: joined, or
   * subscribed for Postgres Changes) is unexpected (not a delivery the ledger expects). A
   * second receipt of the same (stream, seq) on the same connection is a duplicate; a first
   * receipt below the highest seq seen is a delivery, counted as reordered too.
   */
  record(
    m: MemberState,
    stream: number,
    seq: number,
    sentAtMs: number,
    recvMs: number,
    bytes: number,
    memberSinceMs = m.joinedAtMs,
  ): void {
    this.bytesThisSecond += bytes;
    const local = stream - this.base;
    if (local < 0 || local >= STREAM_STRIDE) {
      this.stale++;
      return;
    }
    if (memberSinceMs === 0 || sentAtMs < memberSinceMs) {
      this.unexpected++;
      return;
    }
    const kind = Math.min(KIND_COUNT - 1, Math.floor(local / KIND_STRIDE));
    const seen = this.seen(m, stream, seq);
    if (seen === SEQ_DUPLICATE) {
      this.duplicates++;
      this.duplicatesByKind[kind]++;
      return;
    }
    if (seen === SEQ_REORDERED) {
      this.reordered++;
      this.reorderedByKind[kind]++;
    }
    let s = this.streams[local];
    if (s === undefined)
      s = this.streams[local] = new StreamReceipts(
        this.scope ? this.scope.senderOf(local) : SENDER_HERE,
      );
    s.add(seq, recvMs);
    this.received++;
    this.receivedThisSecond++;
    this.receivedByKindThisSecond[kind]++;
    // Sent from another machine: its clock is not ours, so the receipt is counted but its
    // latency is not taken (one-machine runs never get here: sender is SENDER_HERE).
    if (
      s.sender !== SENDER_HERE &&
      (s.sender === SENDER_BY_SEQ ? seq % this.scope!.segments : s.sender) !== this.scope!.segment
    ) {
      this.otherMachine++;
      return;
    }
    const latencyMs = recvMs - sentAtMs;
    // One record per histogram that needs it: the step's total is the sum of the kinds'.
    recordMs(this.secondHist, latencyMs);
    recordMs(this.kindHists[kind], latencyMs);
  }

  /** Classifies and records (stream, seq) in the member's windows. */
  private seen(m: MemberState, stream: number, seq: number): SeqClass {
    if (m.epoch !== this.epoch) {
      m.epoch = this.epoch;
      m.stream = stream;
      m.window = this.windows.open(seq);
      m.windows = null;
      return SEQ_NEW;
    }
    if (m.stream === stream) return this.windows.classify(m.window, seq);
    const map = (m.windows ??= new Map());
    const w = map.get(stream);
    if (w !== undefined) return this.windows.classify(w, seq);
    map.set(stream, this.windows.open(seq));
    return SEQ_NEW;
  }

  private mergedKinds(): Histogram {
    this.hist.reset();
    for (const h of this.kindHists) this.hist.add(h);
    return this.hist;
  }

  takeSecond(): {
    received: number;
    receivedByKind: number[];
    bytes: number;
    histogram: Histogram;
  } {
    const out = {
      received: this.receivedThisSecond,
      receivedByKind: this.receivedByKindThisSecond,
      bytes: this.bytesThisSecond,
      histogram: this.secondHist,
    };
    this.receivedByKindThisSecond = new Array<number>(KIND_COUNT).fill(0);
    this.secondHist = createHistogram();
    this.receivedThisSecond = 0;
    this.bytesThisSecond = 0;
    return out;
  }

  snapshot(): ReceiptsSnapshot {
    const streams: ReceiptsSnapshot['streams'] = [];
    this.streams.forEach((s, local) => {
      if (!s) return;
      streams.push({
        stream: local,
        count: s.count.slice(0, s.size),
        first: s.first.slice(0, s.size),
        last: s.last.slice(0, s.size),
      });
    });
    return {
      streams,
      received: this.received,
      reordered: this.reordered,
      otherMachine: this.otherMachine,
      duplicates: this.duplicates,
      reorderedByKind: [...this.reorderedByKind],
      duplicatesByKind: [...this.duplicatesByKind],
      unexpected: this.unexpected,
      stale: this.stale,
      deliveryHistogram: this.mergedKinds(),
      kindHistograms: this.kindHists,
    };
  }
}
