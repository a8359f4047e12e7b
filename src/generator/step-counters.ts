/**
 * What a generator process counts during one step, held in one object. A new step gets a new
 * object (newStepCounters), so no counter can survive a step boundary by being forgotten in
 * a hand-written reset. The per-second counters work the same way at each second.
 */
import type { ClassifiedError } from '../client/classify.js';
import { createHistogram, recordMs, type Histogram } from '../measure/histogram.js';
import { newAckCounts, type AckCounts } from './ack-tracker.js';
import { ReconnectGap } from './reconnect-gap.js';
import type { ErrorClass } from '../result/result.js';

/** Distinct error reasons kept per step; the rest are pooled per class. */
export const MAX_ERROR_REASONS = 200;
/** Distinct error reasons kept per second (the live line shows a few). */
export const MAX_SECOND_ERROR_REASONS = 20;

export interface StepCounters {
  /** Sockets opened (the upgrade completed). */
  opened: number;
  /** Joins answered ok (first attempts and reconnects). */
  joined: number;
  /** Connect or join attempts that failed. */
  failed: number;
  /** Members dropped by the server or the network. */
  disconnected: number;
  /** Joins opened later than load.late_threshold after their scheduled time. */
  lateJoins: number;
  /** Joins the ramp scheduled (this process's share). */
  scheduledJoins: number;
  /** Reconnect attempts made (load.reconnect). */
  reconnects: number;
  /** The ramp's joins (first attempts), by reply time: joins/s is measured from them. */
  rampJoins: RampJoins;
  /** Reconnects that joined (ok reply). */
  rejoins: number;
  /** How long dropped connections were down before their reconnect joined (load.reconnect). */
  gap: ReconnectGap;
  /** Postgres Changes subscriptions confirmed. */
  subscribed: number;
  /** Scheduled join time → ok reply. */
  joinHist: Histogram;
  /**
   * phx_join push → ok reply: on private channels, mostly the RLS read check
   * (docs/PROTOCOL.md §6.2).
   */
  joinReplyHist: Histogram;
  /** Acked broadcasts: scheduled send time → ack. */
  ackHist: Histogram;
  /** Postgres Changes: receipt minus commit_timestamp. */
  commitHist: Histogram;
  errors: Map<string, number>;
  errorClasses: Record<ErrorClass, number>;
  acks: AckCounts;
  /**
   * Presence tracks (generator/ack-tracker, bounded): replied ok, refused, unanswered within
   * load.ack_timeout, untracked (state full).
   */
  presenceTracks: AckCounts;
  snapshots: { count: number; bytes: number; maxBytes: number; entries: number };
  sendBufferPeakBytes: number;
  /**
   * Sends scheduled, and given up on past their window; `connectionDown`: not made because the
   * sender's connection was down (dropped, its reconnect not joined yet).
   */
  sendStats: { scheduled: number; unsent: number; connectionDown: number };
  /** Frames received that rtcap could not use, by why. */
  frames: FrameCounts;
}

/**
 * Frames a receiving connection got and could not use (docs/FIGURES.md "Frames rtcap could not
 * use"): Phoenix frames that carried nothing rtcap uses — a null payload, no stamp, an event
 * rtcap does not handle (generator/slow-frames) —, frames that are not Phoenix frames (`malformed`)
 * and messages over the client's limit (`oversized`): client/connection reports those two as
 * errors (countError). Fixed fields, so counting one is an increment.
 */
export interface FrameCounts {
  nullPayload: number;
  noStamp: number;
  unknownEvent: number;
  malformed: number;
  oversized: number;
}

export function newFrameCounts(): FrameCounts {
  return { nullPayload: 0, noStamp: 0, unknownEvent: 0, malformed: 0, oversized: 0 };
}

export interface RampJoins {
  /** First attempts answered ok. */
  joined: number;
  /** Epoch ms of the first and the last of those replies; null before the first. */
  firstReplyMs: number | null;
  lastReplyMs: number | null;
  /** First attempts opened more than OFFERED_GRACE_MS after their scheduled time. */
  behindSchedule: number;
}

/** A first attempt's ok reply at replyMs. */
export function countRampJoin(j: RampJoins, replyMs: number): void {
  j.joined++;
  if (j.firstReplyMs === null || replyMs < j.firstReplyMs) j.firstReplyMs = replyMs;
  if (j.lastReplyMs === null || replyMs > j.lastReplyMs) j.lastReplyMs = replyMs;
}

/**
 * A join's ok reply at `nowMs`, `replyMs` after it was sent, of a connection scheduled at
 * `scheduledMs` by attempt `attempt` (0: its first) of step `ofStep`, in step `step`. Only the
 * step's own first attempts count toward its join rate; reconnects are counted apart. `joined`
 * is null when the connection is no longer held (its figures still count the reply).
 */
export function countJoin(
  k: StepCounters,
  sec: SecondCounters,
  joined: { scheduledMs: number; attempt: number; step: number } | null | undefined,
  step: number,
  nowMs: number,
  replyMs: number,
  /** The connection's index: a reconnect's join ends its gap (generator/reconnect-gap). */
  index = -1,
): void {
  k.joined++;
  sec.joins++;
  if (joined) recordMs(k.joinHist, nowMs - joined.scheduledMs);
  if (joined?.attempt === 0 && joined.step === step) countRampJoin(k.rampJoins, nowMs);
  else if (joined && joined.attempt > 0) {
    k.rejoins++;
    if (index >= 0) k.gap.rejoined(index, nowMs);
  }
  recordMs(k.joinReplyHist, replyMs);
}

/**
 * A member lost (its channel or socket gone, not closed by rtcap), in the step and in the
 * second; with its index, the drop starts its gap until a reconnect joins
 * (generator/reconnect-gap).
 */
export function countDisconnect(k: StepCounters, sec: SecondCounters, index = -1, atMs = 0): void {
  k.disconnected++;
  sec.disconnects++;
  if (index >= 0) k.gap.dropped(index, atMs);
}

export function newStepCounters(): StepCounters {
  return {
    opened: 0,
    joined: 0,
    failed: 0,
    disconnected: 0,
    lateJoins: 0,
    scheduledJoins: 0,
    reconnects: 0,
    rampJoins: { joined: 0, firstReplyMs: null, lastReplyMs: null, behindSchedule: 0 },
    rejoins: 0,
    gap: new ReconnectGap(),
    subscribed: 0,
    joinHist: createHistogram(),
    joinReplyHist: createHistogram(),
    ackHist: createHistogram(),
    commitHist: createHistogram(),
    errors: new Map(),
    errorClasses: { server: 0, network: 0, generator: 0, protocol: 0 },
    acks: newAckCounts(),
    presenceTracks: newAckCounts(),
    snapshots: { count: 0, bytes: 0, maxBytes: 0, entries: 0 },
    sendBufferPeakBytes: 0,
    sendStats: { scheduled: 0, unsent: 0, connectionDown: 0 },
    frames: newFrameCounts(),
  };
}

export interface SecondCounters {
  joins: number;
  errors: number;
  disconnects: number;
  errorReasons: Map<string, number>;
  /** This second's errors by class: a step whose collect went unanswered is classed from them. */
  errorClasses: Partial<Record<ErrorClass, number>>;
}

export function newSecondCounters(): SecondCounters {
  return { joins: 0, errors: 0, disconnects: 0, errorReasons: new Map(), errorClasses: {} };
}

/**
 * Counts an error in the step and in the second (and, when it is a frame rtcap could not read, in
 * the step's frames). Reasons are bounded so a storm of distinct messages cannot grow the
 * process: past the cap they pool under their class.
 */
export function countError(step: StepCounters, sec: SecondCounters, e: ClassifiedError): void {
  step.errorClasses[e.class]++;
  if (e.frame) step.frames[e.frame]++;
  sec.errors++;
  sec.errorClasses[e.class] = (sec.errorClasses[e.class] ?? 0) + 1;
  let key = e.reason;
  if (!step.errors.has(key) && step.errors.size >= MAX_ERROR_REASONS)
    key = `(other ${e.class} errors)`;
  step.errors.set(key, (step.errors.get(key) ?? 0) + 1);
  if (sec.errorReasons.size < MAX_SECOND_ERROR_REASONS || sec.errorReasons.has(e.reason)) {
    sec.errorReasons.set(e.reason, (sec.errorReasons.get(e.reason) ?? 0) + 1);
  }
}

/**
 * Records a presence_state snapshot of `bytes` JSON bytes and `entries` presence keys
 * (docs/METHOD.md §5 reports the snapshot size per member).
 */
export function countSnapshot(step: StepCounters, bytes: number, entries: number): void {
  const s = step.snapshots;
  s.count++;
  s.bytes += bytes;
  if (bytes > s.maxBytes) s.maxBytes = bytes;
  s.entries += entries;
}
