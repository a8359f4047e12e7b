/**
 * One WebSocket transport: Phoenix.Socket's routing of inbound frames (docs/PROTOCOL.md §2) and
 * the write path every outgoing frame takes.
 *
 * Inbound frames are handled one at a time, like the socket process: while a join is in
 * flight (token check, RLS, the 5 s error backoff) later frames from the same socket wait,
 * heartbeats included. Fan-out to the socket's other channels is not held up.
 */
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import {
  CLOSE,
  EV,
  KIND,
  MAX_FRAME_BYTES,
  PHOENIX_TOPIC,
  REALTIME_TOPIC_PREFIX,
  REASON,
} from '../protocol/constants.js';
import { decodeBinary, decodeV1, decodeV2 } from '../protocol/frame-decode.js';
import { FrameError } from '../protocol/frame-types.js';
import type { Channel } from './channel.js';
import { joinChannel } from './channel-join.js';
import { ClientFrameReader } from './frame-reader.js';
import { heartbeatReply } from './heartbeat.js';
import type { ChannelSocket, Inbound, ServerContext, TenantRoom, Transport } from './rooms.js';
import { replyFrame } from './wire.js';

/**
 * Sockets written to in this turn of the event loop. Each is corked on its first write and
 * uncorked once in the check phase, so several frames for one socket in one turn leave in a
 * single writev. At light load that is one frame per turn (no added latency beyond the
 * current I/O phase); when the server falls behind, inbound messages arrive in batches and
 * the per-socket syscalls are shared between them, which is what keeps fan-out from
 * collapsing under overload (bench/server-fanout.ts, docs/PERFORMANCE.md).
 */
const corked: Duplex[] = [];
let flushScheduled = false;

function flushCorked(): void {
  flushScheduled = false;
  const list = corked.splice(0);
  for (const s of list) s.uncork();
}

/**
 * Puts the server's own frame reader (frame-reader.ts) in place of ws's Receiver on a socket
 * just upgraded. ws attached its `socketOnData` listener in the upgrade; nothing has been read
 * through it yet, so taking it off loses no byte. At the first frame the reader does not handle
 * the listener goes back, with those bytes, and ws reads the rest of the connection as usual.
 * If this ws version does not look as expected, ws keeps reading: slower, never wrong.
 */
function readFramesOurselves(
  socket: Duplex,
  onMessage: (data: Buffer, isBinary: boolean) => void,
): void {
  const wsOnData = socket.listeners('data').find((f) => f.name === 'socketOnData') as
    ((chunk: Buffer) => void) | undefined;
  if (!wsOnData || socket.listenerCount('data') !== 1) return;
  const reader = new ClientFrameReader(onMessage, MAX_FRAME_BYTES);
  const onData = (chunk: Buffer) => {
    const rest = reader.feed(chunk);
    if (rest === null) return;
    socket.removeListener('data', onData);
    socket.on('data', wsOnData);
    wsOnData.call(socket, rest);
  };
  socket.removeListener('data', wsOnData);
  socket.on('data', onData);
}

export class Connection implements ChannelSocket<Channel>, Transport {
  readonly channels = new Map<string, Channel>();
  /** Counted in the tenant's users (joined at least one channel, docs/PROTOCOL.md §8.2). */
  counted = false;
  closed = false;
  lastInboundMs = Date.now();
  private readonly sock: Duplex;
  /** Frames that arrived while a join was in flight; null when idle. */
  private queue: [Buffer, boolean][] | null = null;

  readonly tenant: TenantRoom;
  readonly v2: boolean;
  /** The socket-level token (`x-api-key` or `apikey`, docs/PROTOCOL.md §1.2). */
  readonly token: string;
  /** Upgrade request headers, passed to RLS as `request.headers` (docs/PROTOCOL.md §6.2). */
  readonly headers: Record<string, string>;

  /** A socket of `upgrade.tenant`, with the serializer, token and headers its upgrade gave. */
  constructor(
    readonly ws: WebSocket,
    readonly ctx: ServerContext,
    upgrade: { tenant: TenantRoom; v2: boolean; token: string; headers: Record<string, string> },
  ) {
    const { tenant } = upgrade;
    this.tenant = tenant;
    this.v2 = upgrade.v2;
    this.token = upgrade.token;
    this.headers = upgrade.headers;
    // ws keeps the TCP socket here; fan-out writes pre-framed frames to it directly (wire.ts).
    this.sock = (ws as unknown as { _socket: Duplex })._socket;
    tenant.connections.add(this);
    const receive = (data: Buffer, isBinary: boolean) => this.receive(data, isBinary);
    readFramesOurselves(this.sock, receive);
    // Frames ws reads itself: from the first one the reader hands back (close, ping, ...).
    ws.on('message', receive);
    ws.on('close', () => this.onClosed());
    ws.on('error', (e) => ctx.log(`socket error: ${e.message}`));
  }

  /**
   * Writes a complete WebSocket frame. A socket that lets too much queue up is killed, as Phoenix
   * kills a transport over its max heap (docs/PROTOCOL.md §1.2).
   */
  write(frame: Buffer): void {
    if (this.closed) return;
    const s = this.sock;
    const stats = this.ctx.stats;
    stats.framesWritten++;
    if (s.writableCorked === 0) {
      stats.socketFlushes++;
      s.cork();
      corked.push(s);
      if (!flushScheduled) {
        flushScheduled = true;
        setImmediate(flushCorked);
      }
    }
    s.write(frame);
    if (s.writableLength > this.ctx.maxBufferedBytes) {
      this.ctx.stats.slowConsumersKilled++;
      this.kill();
    }
  }

  private receive(data: Buffer, isBinary: boolean): void {
    this.lastInboundMs = Date.now();
    if (this.queue) {
      this.queue.push([data, isBinary]);
      return;
    }
    const pending = this.dispatch(data, isBinary);
    if (pending) this.hold(pending);
  }

  private hold(pending: Promise<void>): void {
    this.queue = [];
    pending
      .catch((e) => this.ctx.log(`join failed: ${(e as Error).stack ?? e}`))
      .finally(() => this.drain());
  }

  private drain(): void {
    const q = this.queue;
    this.queue = null;
    if (!q) return;
    while (q.length > 0 && !this.closed) {
      const [data, isBinary] = q.shift()!;
      const pending = this.dispatch(data, isBinary);
      if (pending) {
        this.queue = q;
        pending
          .catch((e) => this.ctx.log(`join failed: ${(e as Error).stack ?? e}`))
          .finally(() => this.drain());
        return;
      }
    }
  }

  private dispatch(data: Buffer, isBinary: boolean): Promise<void> | void {
    const heartbeat = this.v2 && !isBinary ? heartbeatReply(data) : null;
    if (heartbeat) return this.write(heartbeat);
    let f: Inbound | null;
    try {
      f = this.decode(data, isBinary);
    } catch (e) {
      // InvalidMessageError: logged as MalformedWebSocketMessage, frame dropped, socket kept
      // (docs/PROTOCOL.md §2.1).
      if (!(e instanceof FrameError)) throw e;
      this.ctx.stats.malformedFrames++;
      return;
    }
    if (f) return this.route(f);
  }

  private decode(data: Buffer, isBinary: boolean): Inbound | null {
    if (!isBinary)
      return this.v2 ? decodeV2(data.toString('utf8')) : decodeV1(data.toString('utf8'));
    // The V1 serializer cannot decode binary frames.
    if (!this.v2) throw new FrameError('binary frame on a vsn 1.0.0 socket');
    const b = decodeBinary(data, 'client');
    if (b.kind === KIND.userBroadcastPush) {
      // A kind-3 push is a `broadcast` event carrying the user event and raw payload
      // (docs/PROTOCOL.md §2.3).
      return {
        joinRef: b.joinRef || null,
        ref: b.ref || null,
        topic: b.topic,
        event: EV.broadcast,
        payload: null,
        user: { event: b.userEvent, encoding: b.encoding, bytes: b.payload },
      };
    }
    if (b.kind === KIND.push && b.from === 'client') {
      return {
        joinRef: b.joinRef || null,
        ref: b.ref || null,
        topic: b.topic,
        event: b.event,
        payload: null,
        binary: b.data,
      };
    }
    // Kinds 1, 2 and 4 are server → client only.
    throw new FrameError(`binary kind ${b.kind} from a client`);
  }

  /** Phoenix.Socket `handle_in` (docs/PROTOCOL.md §2.4–§2.6). */
  private route(f: Inbound): Promise<void> | void {
    if (f.topic === PHOENIX_TOPIC && f.event === EV.heartbeat) {
      this.write(replyFrame({ v2: this.v2, joinRef: null, topic: PHOENIX_TOPIC }, f.ref, 'ok', {}));
      return;
    }
    const ch = this.channels.get(f.topic);
    if (f.event === EV.join) {
      if (!f.topic.startsWith(REALTIME_TOPIC_PREFIX)) {
        this.write(
          replyFrame({ v2: this.v2, joinRef: f.joinRef, topic: f.topic }, f.ref, 'error', {
            reason: REASON.unmatchedTopic,
          }),
        );
        return;
      }
      // Duplicate join: the old channel is shut down with phx_close, then the new join runs.
      if (ch) ch.close();
      return joinChannel(this, f);
    }
    if (!ch) {
      // Leaving a topic never joined still gets ok; anything else is an unmatched topic.
      if (f.event === EV.leave)
        this.write(
          replyFrame({ v2: this.v2, joinRef: f.joinRef, topic: f.topic }, f.ref, 'ok', {}),
        );
      else
        this.write(
          replyFrame({ v2: this.v2, joinRef: f.joinRef, topic: f.topic }, f.ref, 'error', {
            reason: REASON.unmatchedTopic,
          }),
        );
      return;
    }
    // A missing join_ref is accepted; a different one is stale and ignored (docs/PROTOCOL.md §2.6).
    if (f.joinRef !== null && f.joinRef !== ch.joinRef) return;
    if (f.event === EV.leave) return ch.leave(f.ref);
    ch.handleIn(f);
  }

  /** `%Broadcast{event: "disconnect"}`: the transport stops (docs/PROTOCOL.md §2.5). */
  disconnect(): void {
    this.close(CLOSE.normal);
  }

  close(code: number, reason = ''): void {
    if (this.closed) return;
    this.closed = true;
    this.teardownChannels();
    this.ws.close(code, reason);
  }

  /** Drops the TCP connection without a close frame. */
  kill(): void {
    if (!this.closed) {
      this.closed = true;
      this.teardownChannels();
    }
    this.ws.terminate();
  }

  private onClosed(): void {
    this.closed = true;
    this.teardownChannels();
    this.tenant.connections.delete(this);
    if (this.counted) this.tenant.users.delete(this);
    this.queue = null;
  }

  private teardownChannels(): void {
    for (const ch of [...this.channels.values()]) ch.teardown();
  }
}
