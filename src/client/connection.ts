/**
 * One WebSocket connection speaking Phoenix channels: connect, join, heartbeat, pushes,
 * replies, and failure classification. Timers live outside (the worker's schedulers drive
 * heartbeats and timeouts for thousands of connections from one timer each). How the socket is
 * opened is client/socket-open, who reads its frames client/fast-reader, what a control frame
 * means for a membership and what a reply settles client/channel-frames, which replies it awaits
 * client/awaited-replies.
 *
 * Hot path (onMessage): a delivery carrying rtcap's stamp is recognised from raw bytes
 * (scanStamp) and handed to the hooks without JSON parsing, as is the ok reply to the pending
 * heartbeat (isHeartbeatOk); every other frame takes the slow path (decodeFrame, then onFrame).
 * A frame it cannot read is an error (client/classify). A heartbeat is sent as one pre-built
 * frame (client/heartbeat-send).
 */
import WebSocket from 'ws';
import { EV, PHOENIX_TOPIC, type Vsn } from '../protocol/constants.js';
import { decodeFrame, encodeFrame } from '../protocol/frame.js';
import type { Frame } from '../protocol/frame-types.js';
import { scanStamp, type Stamp } from '../protocol/stamp.js';
import { frameEventIs } from '../protocol/frame-event.js';
import { isHeartbeatOk } from '../protocol/heartbeat.js';
import { newMemberState, type MemberState } from '../measure/member-state.js';
import { nowMs } from '../measure/clock.js';
import {
  classifyClose,
  classifyMalformedFrame,
  classifyRefusedFrame,
  classifyRefusedUpgrade,
  classifySocketError,
  classifyTlsFailure,
  type ClassifiedError,
} from './classify.js';
import {
  MAX_PAYLOAD_BYTES,
  onRefusedUpgrade,
  openSocket,
  type ConnectOptions,
} from './socket-open.js';
import { readFramesOurselves } from './fast-reader.js';
import { writeHeartbeat } from './heartbeat-send.js';
import { channelFailure, IGNORE, PASS_ON, settleReply, type JoinState } from './channel-frames.js';
import { AwaitedReplies } from './awaited-replies.js';
import { encodePush, type BinaryUserEvent } from './push-encode.js';
import type { ConnectionHooksOf } from './connection-hooks.js';

/** What a Connection tells its owner (connection-hooks.ts). */
export type ConnectionHooks = ConnectionHooksOf<Connection>;

export type ConnectionState = 'idle' | 'connecting' | 'open' | 'closing' | 'closed';

const stampScratch: Stamp = { id: 0, stream: 0, sentAtMs: 0 };

export class Connection {
  state: ConnectionState = 'idle';
  ws: WebSocket | null = null;
  /** The primary topic's receive state (ledger). */
  readonly member: MemberState = newMemberState();
  /** topic → join_ref of the current join. */
  readonly joins = new Map<string, JoinState>();
  /** The refs of this connection's frames and the replies it awaits for them. */
  private readonly replies = new AwaitedReplies();
  private closingByUs = false;
  openedAtMs = 0;
  connectStartMs = 0;
  /** When its last heartbeat went (clock.nowMs), and the gap before that one: 0 until they did. */
  private lastHeartbeatMs = 0;
  private gapBeforeLastMs = 0;
  /** Frames are read by FrameReader (frame-reader.ts), not ws's Receiver (tests check which). */
  fastReader = false;
  /** The only event a stamped text frame is a delivery as (ConnectOptions.deliveryEvent). */
  private deliveryEvent: Uint8Array | null = null;

  constructor(
    readonly index: number,
    readonly vsn: Vsn,
    private readonly hooks: ConnectionHooks,
  ) {}

  connect(opts: ConnectOptions): void {
    this.state = 'connecting';
    this.connectStartMs = nowMs();
    this.deliveryEvent = opts.deliveryEvent ?? null;
    // Whether a wss:// handshake completed: an error before it is a TLS failure.
    let tlsUp = !opts.url.startsWith('wss:');
    let ws: WebSocket;
    try {
      ws = openSocket(opts, () => (tlsUp = true));
    } catch (e) {
      this.fail(classifySocketError(e as Error), 'connect');
      return;
    }
    this.ws = ws;
    const onMessage = (data: Buffer, isBinary: boolean) => this.onMessage(data, isBinary);
    ws.on('open', () => {
      if (readFramesOurselves(ws, onMessage, MAX_PAYLOAD_BYTES)) this.fastReader = true;
      this.state = 'open';
      this.openedAtMs = nowMs();
      this.hooks.onOpen(this);
    });
    // Frames ws reads itself: all of them if the fast reader could not be installed, else
    // those from the first one it handed back (close and the like).
    ws.on('message', onMessage);
    onRefusedUpgrade(ws, (status, body) => {
      if (this.state !== 'closed') this.fail(classifyRefusedUpgrade(status, body), 'connect');
    });
    ws.on('error', (err: Error) => {
      if (this.state === 'closed') return;
      const refused = classifyRefusedFrame(err, MAX_PAYLOAD_BYTES);
      if (this.state === 'connecting')
        this.fail(tlsUp ? classifySocketError(err) : classifyTlsFailure(err), 'connect');
      else if (!refused) this.hooks.onError(this, classifySocketError(err), 'socket');
      else {
        // ws has sent its close (1009, 1002) and reads no more: the connection is gone now, not
        // once the rest of the server's bytes have gone by, and the close that follows is no news.
        this.hooks.onError(this, refused, 'frame');
        this.markClosed(false);
      }
    });
    ws.on('close', (code: number, reason: Buffer) => {
      if (this.state === 'closed') return;
      const byUs = this.closingByUs;
      if (!byUs) {
        const phase = this.state === 'connecting' ? 'connect' : 'socket';
        this.hooks.onError(this, classifyClose(code, reason.toString()), phase);
      }
      this.markClosed(byUs);
    });
  }

  private fail(e: ClassifiedError, phase: 'connect'): void {
    this.hooks.onError(this, e, phase);
    this.closingByUs = true;
    try {
      this.ws?.terminate();
    } catch {
      /* already gone */
    }
    this.markClosed(false);
  }

  private markClosed(byUs: boolean): void {
    this.state = 'closed';
    this.replies.clear();
    this.hooks.onClosed(this, byUs);
  }

  /** Sends a frame; false when the socket is not open (the caller counts a failed send). */
  sendFrame(frame: Frame): boolean {
    const ws = this.ws;
    if (this.state !== 'open' || !ws) return false;
    ws.send(encodeFrame(frame, this.vsn, 'client'));
    return true;
  }

  join(topic: string, payload: unknown): void {
    const ref = this.replies.next();
    this.joins.set(topic, { joinRef: ref, joined: false });
    this.replies.add(ref, { kind: 'join', topic, sentAtMs: nowMs() });
    this.sendFrame({ joinRef: ref, ref, topic, event: EV.join, payload });
  }

  leave(topic: string): void {
    const j = this.joins.get(topic);
    if (!j) return;
    const ref = this.replies.next();
    this.replies.add(ref, { kind: 'leave', topic, sentAtMs: nowMs() });
    this.sendFrame({ joinRef: j.joinRef, ref, topic, event: EV.leave, payload: {} });
  }

  /**
   * A push on a joined topic. With `ack`, the reply is matched and reported via onAck.
   * `binaryUserEvent` sends it as a v2 kind-3 user broadcast, as current realtime-js does.
   * `ackId` is the caller's id of an acked push (its own pending-ack state), given back in onAck.
   */
  push(
    topic: string,
    event: string,
    payload: unknown,
    ack: boolean,
    binaryUserEvent?: BinaryUserEvent,
    tag?: string,
    ackId?: number,
  ): boolean {
    const ws = this.ws;
    if (this.state !== 'open' || !ws) return false;
    const j = this.joins.get(topic);
    const joinRef = j ? j.joinRef : null;
    const ref = this.replies.next();
    if (ack) this.replies.add(ref, { kind: 'push', topic, sentAtMs: nowMs(), tag, ackId });
    ws.send(encodePush(this.vsn, joinRef, ref, topic, event, payload, binaryUserEvent));
    return true;
  }

  /**
   * Whether its last heartbeat still awaits a reply, which may be in the socket unread: the
   * scheduler then heartbeats it only once the event loop has read its sockets.
   */
  get heartbeatAwaited(): boolean {
    return this.replies.heartbeatRef !== null;
  }

  /**
   * The longest of the last two gaps in its heartbeats, ms: the one still open at `now` (since
   * the last heartbeat, or since the socket opened) and the one the last heartbeat ended. A server
   * that closed the connection as idle closed it in one of them: the close may be read only after
   * a heartbeat the held loop sent on waking.
   */
  heartbeatGapMs(now: number): number {
    const since = this.lastHeartbeatMs || this.openedAtMs;
    return Math.max(since > 0 ? now - since : 0, this.gapBeforeLastMs);
  }

  /**
   * Called by the worker's heartbeat scheduler. A heartbeat still unanswered when the next
   * is due closes the socket with 1000 "heartbeat timeout", as the clients do
   * (docs/PROTOCOL.md §2.4).
   */
  heartbeat(): void {
    if (this.state !== 'open') return;
    // The server's close frame came in and its closing handshake is under way: the close says
    // why (an idle timeout, a kick), not a heartbeat it never answered.
    if (this.ws && this.ws.readyState !== WebSocket.OPEN) return;
    if (this.replies.heartbeatRef !== null) {
      this.hooks.onError(
        this,
        { class: 'server', reason: 'heartbeat timeout (no reply within the interval)' },
        'heartbeat',
      );
      this.close(1000, 'heartbeat timeout');
      return;
    }
    const ref = this.replies.next();
    this.replies.heartbeatRef = ref;
    const now = nowMs();
    this.gapBeforeLastMs = now - (this.lastHeartbeatMs || this.openedAtMs || now);
    this.lastHeartbeatMs = now;
    // One pre-built frame, one write (heartbeat-send.ts); ws frames it when that cannot be.
    if (this.ws && writeHeartbeat(this.ws, ref, this.vsn)) return;
    this.sendFrame({ joinRef: null, ref, topic: PHOENIX_TOPIC, event: EV.heartbeat, payload: {} });
  }

  /** The ref of the last frame this connection numbered (a push's, right after push()). */
  get lastRef(): string {
    return this.replies.last;
  }

  /**
   * Stops waiting for the reply to `ref` (its caller gave up on it); a late reply is then ignored.
   */
  forget(ref: string): void {
    this.replies.take(ref);
  }

  /** Fails joins that had no reply within `timeoutMs`. Returns how many timed out. */
  expireJoins(now: number, timeoutMs: number): number {
    const expired = this.replies.takeExpiredJoins(now, timeoutMs);
    if (!expired) return 0;
    for (const p of expired) {
      this.joins.delete(p.topic);
      this.hooks.onError(
        this,
        { class: 'server', reason: `join timeout: no reply within ${Math.round(timeoutMs)} ms` },
        'join',
      );
    }
    return expired.length;
  }

  close(code = 1000, reason = ''): void {
    if (this.state === 'closed') return;
    this.closingByUs = true;
    const ws = this.ws;
    if (!ws) {
      this.markClosed(true);
      return;
    }
    this.state = 'closing';
    try {
      if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
      else ws.close(code, reason);
    } catch {
      ws.terminate();
    }
    // A peer that never answers the close handshake must not keep the socket.
    setTimeout(() => {
      if (this.state !== 'closed') ws.terminate();
    }, 2000).unref();
  }

  terminate(): void {
    if (this.state === 'closed') return;
    this.closingByUs = true;
    this.ws?.terminate();
  }

  get hasPendingJoin(): boolean {
    return this.replies.hasJoin;
  }

  // ------------------------------------------------------------------ receive

  private onMessage(data: Buffer, isBinary: boolean): void {
    // The receive time first, before any work on the frame: what a bare client takes.
    const recvMs = nowMs();
    // The ok reply to the pending heartbeat, recognised from its bytes (protocol/heartbeat.ts):
    // what the general path below would conclude, without decoding it.
    const hbRef = this.replies.heartbeatRef;
    if (hbRef !== null && !isBinary && isHeartbeatOk(data, hbRef, this.vsn)) {
      this.replies.heartbeatRef = null;
      return;
    }
    // A stamped frame of another event than the deliveries' (a push's reply carrying the pushed
    // payload) takes the slow path: a reply, or a frame rtcap could not use, never a delivery.
    if (scanStamp(data, stampScratch) && this.isDelivery(data, isBinary)) {
      this.hooks.onStamp(this, stampScratch, recvMs, data.length);
      return;
    }
    let frame: Frame;
    try {
      frame = decodeFrame(data, isBinary, this.vsn, 'server');
    } catch (e) {
      this.hooks.onError(this, classifyMalformedFrame(e, data, isBinary), 'frame');
      return;
    }
    this.onFrame(frame);
  }

  private isDelivery(data: Buffer, isBinary: boolean): boolean {
    return (
      isBinary || this.deliveryEvent === null || frameEventIs(data, this.vsn, this.deliveryEvent)
    );
  }

  private onFrame(f: Frame): void {
    if (f.event === EV.reply) {
      this.onReply(f);
      return;
    }
    const failure = channelFailure(f, this.joins);
    if (failure === IGNORE) return;
    if (failure === PASS_ON) this.hooks.onFrame(this, f);
    else this.hooks.onError(this, failure, 'channel');
  }

  private onReply(f: Frame): void {
    if (f.ref === null) return;
    if (f.ref === this.replies.heartbeatRef) {
      this.replies.heartbeatRef = null;
      return;
    }
    const p = this.replies.take(f.ref);
    if (p) settleReply(this, this.hooks, this.joins, p, f);
  }
}
