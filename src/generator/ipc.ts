/**
 * Messages between the coordinator and generator processes (child_process IPC with the
 * 'advanced' serialization, so typed arrays cross as they are).
 */
import type { Profile } from '../profile/schema.js';
import type { ErrorClass } from '../result/result.js';
import type { MemberInterval } from '../measure/membership.js';
import { encodeHistogram } from '../measure/histogram.js';
import type { ReceiptsSnapshot } from '../measure/ledger.js';
import type { HealthSample } from '../measure/health.js';
import type { AckCounts } from './ack-tracker.js';
import type { FrameCounts, RampJoins } from './step-counters.js';
import type { TokenConfig } from '../client/auth.js';
import type { TlsOptions } from '../client/socket-open.js';
import type { Segment } from './segment.js';
import type { ReconnectGapSummary } from './reconnect-gap.js';

export type ToWorker =
  | {
      type: 'init';
      workerIndex: number;
      workers: number;
      /** This machine's part of the run (generator/segment); absent: the whole plan. */
      segment?: Segment;
      profile: Profile;
      /** Socket URL without the token. */
      url: string;
      headers: Record<string, string>;
      sourceAddresses: string[];
      tokens: TokenConfig;
      /** wss:// trust and client certificate, read by the coordinator (target.tls). */
      tls?: TlsOptions;
      /** This process's emulated-link relay (generator.link): dialled instead of url's host. */
      via?: { host: string; port: number };
    }
  /** The definition of a step decided at run time (sweeps); replaces profile.load.steps[index]. */
  | { type: 'step'; index: number; spec: Profile['load']['steps'][number] }
  | { type: 'ramp'; step: number; fromConn: number; toConn: number; startMs: number }
  | { type: 'shrink'; step: number; toConn: number }
  | { type: 'send'; step: number; startMs: number }
  | { type: 'collect'; step: number }
  | { type: 'stop' };

export interface SecondStats {
  type: 'second';
  worker: number;
  /** Epoch second this covers (the second that just ended). */
  t: number;
  /**
   * The first epoch second this line covers when the process's tick came more than a second
   * late: its counts are those of `from` to `t` (figures/spread-line). Absent: `t` alone.
   */
  from?: number;
  /**
   * Set by the timeline on the pieces of a line that covered more than one second: how many
   * seconds it covered (its counts spread evenly over them). Absent on a line of one second.
   */
  spread?: number;
  open: number;
  joined: number;
  joins: number;
  sent: number;
  /** Acks (ok) received this second, counted by ack time. */
  acked: number;
  /** Acks pending at the end of this second. */
  acksPending: number;
  received: number;
  /** Of `received`: by traffic kind (broadcast, presence, changes). Absent from older senders. */
  receivedByKind?: number[];
  bytes: number;
  errors: number;
  disconnects: number;
  /** Delivery latency of this second's receipts (compressed HDR). */
  histogram: string;
  health: HealthSample;
  /** This second's errors by reason. */
  errorReasons: Record<string, number>;
  /**
   * This second's errors by class (every error, reasons past their cap too). Absent from older
   * senders.
   */
  errorClasses?: Partial<Record<ErrorClass, number>>;
}

export interface StepCollected {
  type: 'collected';
  worker: number;
  step: number;
  /** The segment (machine) of this process (generator/segment); absent: 0. */
  segment?: number;
  receipts: {
    streams: Array<{ stream: number; count: Uint32Array; first: Float64Array; last: Float64Array }>;
    received: number;
    /** Of received: first receipts below the highest seq seen of their stream. */
    reordered: number;
    /**
     * Of received: receipts sent from another segment (machine); not in the latency histograms,
     * whose receipts all had their sender here.
     */
    otherMachine?: number;
    duplicates: number;
    /** The same by traffic kind (absent in shards written before they were split). */
    reorderedByKind?: number[];
    duplicatesByKind?: number[];
    unexpected: number;
    stale: number;
    deliveryHistogram: string;
    /** Per traffic kind (broadcast, presence, changes). */
    kindHistograms: string[];
  };
  sends: Array<{ stream: number; sched: Float64Array; actual: Float64Array }>;
  sendStats: {
    scheduled: number;
    sent: number;
    failed: number;
    late: number;
    unsent: number;
    /** Of failed: not made because the sender's connection was down (absent in older shards). */
    connectionDown?: number;
  };
  membership: Record<string, MemberInterval[]>;
  connections: {
    opened: number;
    joined: number;
    failed: number;
    disconnected: number;
    openAtEnd: number;
    joinedAtEnd: number;
    lateJoins: number;
    scheduledJoins: number;
    /** Reconnect attempts (load.reconnect) made in this step. */
    reconnects: number;
    /** Postgres Changes subscriptions confirmed ("Subscribed to PostgreSQL") in this step. */
    subscribed: number;
    /** Drops and the reconnects that brought them back (absent in older shards). */
    gap?: ReconnectGapSummary;
  };
  /** The ramp's joins (first attempts) by reply time, and reconnects that joined. */
  joins: { ramp: RampJoins; rejoins: number };
  /** Scheduled join time → ok reply (reconnects: from when they were reopened), compressed HDR. */
  joinLatencyHistogram: string;
  /**
   * phx_join push → ok reply of the joins that succeeded, compressed HDR (private: the RLS read
   * check).
   */
  joinReplyLatencyHistogram?: string;
  errors: Record<string, number>;
  errorClasses: Record<ErrorClass, number>;
  /**
   * Acked broadcasts (load.ack): ok, refused, unanswered (load.ack_timeout or end of step),
   * untracked (state full).
   */
  acks: AckCounts;
  /** Acknowledged broadcasts, scheduled send time → ack (load.ack), compressed HDR. */
  ackLatencyHistogram: string;
  /** Presence track replies: ok and refused. */
  presenceReplies: { ok: number; errors: number };
  /**
   * Presence tracks with no reply within load.ack_timeout (or by the end of the step), and
   * tracks sent while the pending-track state was full (not tracked: generator-bound).
   */
  presenceTracks?: { unanswered: number; untracked: number };
  /**
   * presence_state snapshots received at join: how many, their JSON bytes (sum, max) and presence
   * keys.
   */
  presenceSnapshots?: { count: number; bytes: number; maxBytes: number; entries: number };
  /**
   * Postgres Changes: receipt minus commit_timestamp (server clock, ms precision), compressed HDR.
   */
  commitLatencyHistogram: string;
  /** Highest bytes waiting in a sender's socket right after a send (ws bufferedAmount). */
  sendBufferPeakBytes: number;
  /** Event-loop delay p99 over the steady window (since the send phase began). */
  lagP99Ms: number | null;
  /** Frames received that rtcap could not use, by why (absent in older shards). */
  frames?: FrameCounts;
}

export type FromWorker =
  /**
   * rssMb: the process's resident memory when ready, before any connection (the baseline of
   * generator.rss_per_connection_kb).
   */
  | { type: 'ready'; worker: number; rssMb: number }
  | SecondStats
  | {
      type: 'rampDone';
      worker: number;
      step: number;
      joined: number;
      failed: number;
      errors: Record<string, number>;
      /**
       * The step's ramp joins (first attempts) by reply time and reconnects that joined, as its
       * collect reports them: the ramp's join rate is known once the ramp is over.
       */
      joins: { ramp: RampJoins; rejoins: number };
      /** Joins the step scheduled on this process. */
      scheduledJoins: number;
    }
  | { type: 'sendDone'; worker: number; step: number }
  | StepCollected
  | { type: 'fatal'; worker: number; message: string };

/**
 * A receive ledger's step snapshot as it crosses to the coordinator (and into a shard): histograms
 * encoded.
 */
export function encodeReceipts(snap: ReceiptsSnapshot): StepCollected['receipts'] {
  return {
    streams: snap.streams,
    received: snap.received,
    reordered: snap.reordered,
    otherMachine: snap.otherMachine,
    duplicates: snap.duplicates,
    reorderedByKind: snap.reorderedByKind,
    duplicatesByKind: snap.duplicatesByKind,
    unexpected: snap.unexpected,
    stale: snap.stale,
    deliveryHistogram: encodeHistogram(snap.deliveryHistogram),
    kindHistograms: snap.kindHistograms.map(encodeHistogram),
  };
}
