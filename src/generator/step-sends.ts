/**
 * What one generator process sends in a step and the replies it waits for: stamped
 * broadcasts (their acks awaited when load.ack asks for them) and presence tracks (their
 * replies awaited), both in bounded pending state (generator/ack-tracker) so a server that never
 * answers cannot grow the connections' pending maps without limit. A reply after
 * load.ack_timeout was already counted unanswered and is not counted again.
 */
import type { ClassifiedError } from '../client/classify.js';
import type { Connection } from '../client/connection.js';
import { nowMs } from '../measure/clock.js';
import { recordMs } from '../measure/histogram.js';
import { streamId } from '../measure/stream-id.js';
import type { Profile } from '../profile/schema.js';
import {
  AFTER_FIRST_BINARY_PUSH,
  BINARY_PUSH_CLOSE_WITHIN_MS,
} from '../result/binary-push-close.js';
import { AckTracker } from './ack-tracker.js';
import type { StepCounters } from './step-counters.js';
import type { TrafficTag } from './traffic-driver.js';
import { BenchSender, PresenceSender } from './traffic.js';

export class StepSends {
  /** Acked broadcasts waiting for their ack. */
  readonly acks: AckTracker<Connection>;
  /** Presence tracks waiting for their reply. */
  readonly tracks: AckTracker<Connection>;
  private sender: BenchSender | null = null;
  private presenceSender: PresenceSender | null = null;
  private counters: StepCounters | null = null;
  /** When each connection made its first binary broadcast push. */
  private readonly firstBinaryPush = new WeakMap<Connection, number>();

  constructor(
    ackTimeoutMs: number,
    private readonly countError: (e: ClassifiedError) => void,
  ) {
    this.acks = new AckTracker<Connection>(ackTimeoutMs, (c, ref) => c.forget(ref));
    this.tracks = new AckTracker<Connection>(ackTimeoutMs, (c, ref) => c.forget(ref));
  }

  /** A new step: its senders, and its counters (what is still pending stays pending). */
  beginStep(profile: Profile, payloadBytes: number, counters: StepCounters): void {
    this.sender = new BenchSender(profile, payloadBytes);
    this.presenceSender = new PresenceSender(payloadBytes);
    this.countInto(counters);
  }

  /** Counts into `counters` from now on (a step's, or after a collection the next step's). */
  countInto(counters: StepCounters): void {
    this.counters = counters;
    this.acks.countInto(counters.acks);
    this.tracks.countInto(counters.presenceTracks);
  }

  /** One scheduled message of step `step` on `c`; false when it could not be sent. */
  send(
    c: Connection,
    topic: string,
    step: number,
    tag: TrafficTag,
    localStream: number,
    seq: number,
    due: number,
  ): boolean {
    const stream = streamId(step, localStream);
    const ok =
      tag === 'broadcast'
        ? this.sendBroadcast(c, topic, stream, seq, due)
        : this.sendTrack(c, due, (id) => this.presenceSender!.send(c, topic, stream, seq, due, id));
    if (ok && tag === 'broadcast' && this.sender!.binary && !this.firstBinaryPush.has(c))
      this.firstBinaryPush.set(c, nowMs());
    const buffered = c.ws?.bufferedAmount ?? 0;
    const k = this.counters!;
    if (buffered > k.sendBufferPeakBytes) k.sendBufferPeakBytes = buffered;
    return ok;
  }

  /** The presence track a member sends right after its join (presence_track_on_join). */
  trackOnJoin(c: Connection, topic: string): void {
    const sender = this.presenceSender;
    if (sender) this.sendTrack(c, nowMs(), (ackId) => sender.sendJoin(c, topic, ackId));
  }

  /** A broadcast, with its ack awaited when the server is asked for one. */
  private sendBroadcast(
    c: Connection,
    topic: string,
    stream: number,
    seq: number,
    due: number,
  ): boolean {
    const sender = this.sender!;
    if (!sender.acked) return sender.send(c, topic, stream, seq, due);
    const ackId = this.acks.open(c, due, nowMs());
    const ok = sender.send(c, topic, stream, seq, due, ackId || undefined);
    if (ackId === 0) return ok;
    if (ok) this.acks.bind(ackId, c.lastRef);
    else this.acks.cancel(ackId);
    return ok;
  }

  /** When `c` made its first binary broadcast push (clock.nowMs), if it made one. */
  firstBinaryPushOf(c: Connection): number | undefined {
    return this.firstBinaryPush.get(c);
  }

  /**
   * A close of `c` by the server (`e`), named as the answer to its first binary broadcast push
   * when it came within a second of it: a server that cannot read binary frames.
   */
  nameClose(c: Connection, e: ClassifiedError, now: number): ClassifiedError {
    const at = this.firstBinaryPushOf(c);
    if (at === undefined || now - at > BINARY_PUSH_CLOSE_WITHIN_MS) return e;
    if (!e.reason.startsWith('closed by server')) return e;
    return { ...e, reason: `${e.reason} ${AFTER_FIRST_BINARY_PUSH}` };
  }

  /**
   * A presence track, its reply awaited in the bounded tracker; sent without awaiting one
   * when the tracker is full (counted untracked).
   */
  private sendTrack(c: Connection, due: number, send: (ackId: number) => boolean): boolean {
    const ackId = this.tracks.open(c, due, nowMs());
    const ok = send(ackId);
    if (ackId === 0) return ok;
    if (ok) this.tracks.bind(ackId, c.lastRef);
    else this.tracks.cancel(ackId);
    return ok;
  }

  /** The server's reply to an acked broadcast or a presence track. */
  answered(ok: boolean, reason: string | null, tag?: string, ackId?: number): void {
    if (tag === 'presence') {
      // Only tracks still pending count: a reply after load.ack_timeout was counted unanswered.
      if (ackId === undefined || this.tracks.settle(ackId, ok, nowMs()) === null) return;
      if (!ok) this.countError({ class: 'server', reason: `presence track refused: ${reason}` });
      return;
    }
    // Only acks still pending count: a reply after load.ack_timeout was counted unacked already.
    const fromScheduledMs = ackId === undefined ? null : this.acks.settle(ackId, ok, nowMs());
    if (fromScheduledMs === null) return;
    if (ok) recordMs(this.counters!.ackHist, fromScheduledMs);
    else this.countError({ class: 'server', reason: `ack error: ${reason}` });
  }

  /** The step ended: what is still pending is counted unanswered. */
  endStep(): void {
    this.acks.endStep();
    this.tracks.endStep();
  }
}
