/**
 * The step's whole measurement from one generator process (generator/ipc StepCollected), as the
 * coordinator merges it: receipts, sends, membership, connection and join counts, errors,
 * acks, presence, the frames it could not use and the histograms. Pure: it copies what the
 * process counted; the process closes its pending acks and takes its snapshots before calling it.
 */
import type { ReceiptsSnapshot } from '../measure/ledger.js';
import { encodeHistogram } from '../measure/histogram.js';
import type { MembershipAtEnd } from './connection-set.js';
import { encodeReceipts, type StepCollected } from './ipc.js';
import type { StepCounters } from './step-counters.js';

export interface StepCollectionInputs {
  worker: number;
  step: number;
  /** The segment (machine) of this process. */
  segment: number;
  counters: StepCounters;
  receipts: ReceiptsSnapshot;
  sends: StepCollected['sends'];
  /** The send ledger's totals for the step. */
  sent: { sent: number; failed: number; late: number };
  connections: MembershipAtEnd;
  lagP99Ms: number | null;
}

export function stepCollected(s: StepCollectionInputs): StepCollected {
  const k = s.counters;
  return {
    type: 'collected',
    worker: s.worker,
    step: s.step,
    segment: s.segment,
    receipts: encodeReceipts(s.receipts),
    sends: s.sends,
    sendStats: {
      scheduled: k.sendStats.scheduled,
      sent: s.sent.sent,
      failed: s.sent.failed,
      late: s.sent.late,
      unsent: k.sendStats.unsent,
      connectionDown: k.sendStats.connectionDown,
    },
    membership: s.connections.membership,
    connections: {
      opened: k.opened,
      joined: k.joined,
      failed: k.failed,
      disconnected: k.disconnected,
      openAtEnd: s.connections.openAtEnd,
      joinedAtEnd: s.connections.joinedAtEnd,
      lateJoins: k.lateJoins,
      scheduledJoins: k.scheduledJoins,
      reconnects: k.reconnects,
      subscribed: k.subscribed,
      gap: k.gap.summary(),
    },
    joins: { ramp: { ...k.rampJoins }, rejoins: k.rejoins },
    joinLatencyHistogram: encodeHistogram(k.joinHist),
    joinReplyLatencyHistogram: encodeHistogram(k.joinReplyHist),
    errors: Object.fromEntries(k.errors),
    errorClasses: { ...k.errorClasses },
    acks: { ...k.acks },
    ackLatencyHistogram: encodeHistogram(k.ackHist),
    presenceReplies: { ok: k.presenceTracks.ok, errors: k.presenceTracks.errors },
    presenceTracks: { unanswered: k.presenceTracks.unacked, untracked: k.presenceTracks.untracked },
    presenceSnapshots: { ...k.snapshots },
    commitLatencyHistogram: encodeHistogram(k.commitHist),
    sendBufferPeakBytes: k.sendBufferPeakBytes,
    lagP99Ms: s.lagP99Ms,
    frames: { ...k.frames },
  };
}
