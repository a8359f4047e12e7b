/**
 * Server → client frames, encoded once and pre-framed as complete WebSocket frames.
 *
 * Fan-out is the server's hot path (PERFORMANCE.md): a message to N members
 * must cost one encode per serializer plus N socket writes. So each outgoing message is
 * turned into the exact bytes of an unmasked WebSocket frame (header + payload) once per
 * vsn, and the same Buffer is written to every recipient's TCP socket. `ws` with
 * perMessageDeflate off writes its own frames synchronously with `socket.write` too
 * (ws/lib/sender.js `sendFrame`), so frames written here never interleave with its own.
 *
 * v1 frames carry no join_ref (docs/PROTOCOL.md §2.1); v2 frames are `[join_ref, ref, topic, event,
 * payload]` (docs/PROTOCOL.md §2.2); user broadcasts to v2 sockets are binary kind 4
 * (docs/PROTOCOL.md §2.3).
 */
import { ENCODING, EV } from '../protocol/constants.js';
import { encodeBinaryBroadcast, encodeUserBroadcast } from '../protocol/frame-encode.js';

const OP_TEXT = 0x81; // FIN + text
const OP_BINARY = 0x82; // FIN + binary

function header(op: number, len: number, extra: number): { buf: Buffer; off: number } {
  if (len < 126) {
    const buf = Buffer.allocUnsafe(2 + len + extra);
    buf[0] = op;
    buf[1] = len;
    return { buf, off: 2 };
  }
  if (len < 65536) {
    const buf = Buffer.allocUnsafe(4 + len + extra);
    buf[0] = op;
    buf[1] = 126;
    buf.writeUInt16BE(len, 2);
    return { buf, off: 4 };
  }
  const buf = Buffer.allocUnsafe(10 + len + extra);
  buf[0] = op;
  buf[1] = 127;
  buf.writeUInt32BE(Math.floor(len / 2 ** 32), 2);
  buf.writeUInt32BE(len >>> 0, 6);
  return { buf, off: 10 };
}

/** A complete text frame. */
export function frameText(text: string): Buffer {
  const len = Buffer.byteLength(text);
  const { buf, off } = header(OP_TEXT, len, 0);
  buf.write(text, off, 'utf8');
  return buf;
}

/** A complete binary frame. */
export function frameBinary(data: Uint8Array): Buffer {
  const { buf, off } = header(OP_BINARY, data.length, 0);
  buf.set(data, off);
  return buf;
}

const j = JSON.stringify;

/**
 * Where a server → client message goes: the socket's serializer (v2 or v1), the join_ref it
 * carries and its topic. A Channel is one.
 */
export interface Addressed {
  v2: boolean;
  joinRef: string | null;
  topic: string;
}

/** The text of one server → client message in either serializer. `payloadJson` is already JSON. */
export function messageText(
  to: Addressed,
  ref: string | null,
  event: string,
  payloadJson: string,
): string {
  const { v2, joinRef, topic } = to;
  if (v2) return `[${j(joinRef)},${j(ref)},${j(topic)},${j(event)},${payloadJson}]`;
  return `{"topic":${j(topic)},"event":${j(event)},"payload":${payloadJson},"ref":${j(ref)}}`;
}

/**
 * `phx_reply` (docs/PROTOCOL.md §2.5). `response` is usually an object; an ack's size error is a
 * bare string (docs/PROTOCOL.md §4.1).
 */
export function replyFrame(
  to: Addressed,
  ref: string | null,
  status: 'ok' | 'error',
  response: unknown,
): Buffer {
  return frameText(
    messageText(to, ref, EV.reply, `{"status":${j(status)},"response":${j(response)}}`),
  );
}

/** A channel push: the join's join_ref and `ref: null` (docs/PROTOCOL.md §2.2). */
export function pushFrame(to: Addressed, event: string, payload: unknown): Buffer {
  return frameText(messageText(to, null, event, j(payload)));
}

/** `phx_close` carries ref = join_ref (docs/PROTOCOL.md §2.5). */
export function closeFrame(v2: boolean, joinRef: string | null, topic: string): Buffer {
  return frameText(messageText({ v2, joinRef, topic }, joinRef, EV.close, '{}'));
}

/** A user broadcast that arrived as binary kind 3 (docs/PROTOCOL.md §2.3). */
export interface UserPayload {
  event: string;
  encoding: number;
  bytes: Uint8Array;
}

/**
 * What a fan-out carries: JSON text of a map payload, a kind-3 user broadcast, or a kind-0
 * binary payload. Plain data, so it crosses the cluster IPC unchanged.
 */
export type OutBody =
  { json: string } | { user: UserPayload; meta?: Record<string, unknown> } | { binary: Uint8Array };

const textDecoder = new TextDecoder();

/**
 * A fanned-out message (fastlane: join_ref and ref null, docs/PROTOCOL.md §2.2), encoded lazily at
 * most once per serializer. `null` means that serializer cannot carry it and the member gets
 * nothing, as MessageDispatcher drops what `fastlane!` cannot encode.
 */
export class Outgoing {
  private f1: Buffer | null | undefined;
  private f2: Buffer | null | undefined;

  constructor(
    readonly topic: string,
    readonly event: string,
    readonly body: OutBody,
  ) {}

  frame(v2: boolean): Buffer | null {
    if (v2) return this.f2 === undefined ? (this.f2 = this.encode(true)) : this.f2;
    return this.f1 === undefined ? (this.f1 = this.encode(false)) : this.f1;
  }

  private encode(v2: boolean): Buffer | null {
    const b = this.body;
    if ('json' in b)
      return frameText(
        messageText({ v2, joinRef: null, topic: this.topic }, null, this.event, b.json),
      );
    if ('user' in b) {
      if (v2) {
        return frameBinary(
          encodeUserBroadcast({
            topic: this.topic,
            userEvent: b.user.event,
            metadata: b.meta ?? null,
            encoding: b.user.encoding,
            payload: b.user.bytes,
          }),
        );
      }
      // UserBroadcast.convert_to_json_broadcast: v1 cannot carry binary user payloads
      // (docs/PROTOCOL.md §2.3).
      if (b.user.encoding !== ENCODING.json) return null;
      const text = textDecoder.decode(b.user.bytes);
      try {
        JSON.parse(text);
      } catch {
        return null;
      }
      const meta = b.meta ? `,"meta":${j(b.meta)}` : '';
      return frameText(
        messageText(
          { v2: false, joinRef: null, topic: this.topic },
          null,
          this.event,
          `{"type":"broadcast","event":${j(b.user.event)},"payload":${text}${meta}}`,
        ),
      );
    }
    // Kind-0 binary broadcast: V2Serializer fastlanes it as kind 2; V1 cannot encode it.
    if (!v2) return null;
    return frameBinary(
      encodeBinaryBroadcast({ topic: this.topic, event: this.event, data: b.binary }),
    );
  }
}

/**
 * Approximate `:erlang.external_size` of a payload for the size limit (docs/PROTOCOL.md §4.1): its
 * JSON or byte length.
 */
export function bodyBytes(b: OutBody): number {
  if ('json' in b) return Buffer.byteLength(b.json);
  if ('user' in b) return b.user.bytes.length;
  return b.binary.length;
}
