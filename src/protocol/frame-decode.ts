/**
 * Phoenix frames decoded from the wire (docs/PROTOCOL.md §2.1–§2.3): v1 JSON objects, v2 JSON
 * arrays, v2 binary kinds 0–4, and a binary frame as the Frame a Phoenix client would dispatch.
 * Pure functions: no I/O. Binary payloads of kinds 0–2 and binary-encoded user broadcasts carry
 * a Uint8Array.
 */
import { ENCODING, EV, KIND } from './constants.js';
import { FrameError, type BinaryFrame, type Frame } from './frame-types.js';

const textDecoder = new TextDecoder('utf-8', { fatal: false });

function refOrNull(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  return typeof v === 'string' ? v : String(v);
}

/** `text` parsed as a JSON object; a FrameError saying `notJson` or `notObject` otherwise. */
function jsonObject(text: string, notJson: string, notObject: string): Record<string, unknown> {
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch {
    throw new FrameError(notJson);
  }
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj))
    throw new FrameError(notObject);
  return obj as Record<string, unknown>;
}

// ---------------------------------------------------------------- v1: JSON objects
// (docs/PROTOCOL.md §2.1)

export function decodeV1(text: string): Frame {
  const o = jsonObject(text, 'not JSON', 'v1 frame is not a JSON object');
  // The server requires topic, event, payload and ref to be present (docs/PROTOCOL.md §2.1).
  for (const key of ['topic', 'event', 'payload', 'ref'] as const) {
    if (!(key in o)) throw new FrameError(`v1 frame lacks "${key}"`);
  }
  if (typeof o.topic !== 'string' || typeof o.event !== 'string')
    throw new FrameError('v1 topic and event must be strings');
  return {
    joinRef: refOrNull(o.join_ref),
    ref: refOrNull(o.ref),
    topic: o.topic,
    event: o.event,
    payload: o.payload,
  };
}

// ---------------------------------------------------------------- v2: JSON arrays
// (docs/PROTOCOL.md §2.2)

export function decodeV2(text: string): Frame {
  let arr: unknown;
  try {
    arr = JSON.parse(text);
  } catch {
    throw new FrameError('not JSON');
  }
  // The server accepts arrays of at least five elements (docs/PROTOCOL.md §2.2).
  if (!Array.isArray(arr) || arr.length < 5) throw new FrameError('v2 frame is not an array of 5');
  const [joinRef, ref, topic, event, payload] = arr as unknown[];
  if (typeof topic !== 'string' || typeof event !== 'string')
    throw new FrameError('v2 topic and event must be strings');
  return { joinRef: refOrNull(joinRef), ref: refOrNull(ref), topic, event, payload };
}

// ---------------------------------------------------------------- v2 binary
// (docs/PROTOCOL.md §2.3)

class Reader {
  pos = 0;
  constructor(readonly buf: Uint8Array) {}
  u8(): number {
    if (this.pos >= this.buf.length) throw new FrameError('binary frame truncated');
    return this.buf[this.pos++];
  }
  str(len: number): string {
    if (this.pos + len > this.buf.length) throw new FrameError('binary frame truncated');
    const s = textDecoder.decode(this.buf.subarray(this.pos, this.pos + len));
    this.pos += len;
    return s;
  }
  bytes(len: number): Uint8Array {
    if (this.pos + len > this.buf.length) throw new FrameError('binary frame truncated');
    const b = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return b;
  }
  rest(): Uint8Array {
    const b = this.buf.subarray(this.pos);
    this.pos = this.buf.length;
    return b;
  }
}

function parseMetadata(text: string): Record<string, unknown> | null {
  if (text.length === 0) return null;
  return jsonObject(
    text,
    'binary frame metadata is not JSON',
    'binary frame metadata is not an object',
  );
}

/** Kind 0, a push: the client's layout has a ref, the server's does not. */
function decodePush(r: Reader, from: 'client' | 'server'): BinaryFrame {
  if (from === 'client') {
    const [jl, rl, tl, el] = [r.u8(), r.u8(), r.u8(), r.u8()];
    return {
      kind: 0,
      from,
      joinRef: r.str(jl),
      ref: r.str(rl),
      topic: r.str(tl),
      event: r.str(el),
      data: r.rest(),
    };
  }
  const [jl, tl, el] = [r.u8(), r.u8(), r.u8()];
  return { kind: 0, from, joinRef: r.str(jl), topic: r.str(tl), event: r.str(el), data: r.rest() };
}

/** Kind 1, a reply. */
function decodeReply(r: Reader): BinaryFrame {
  const [jl, rl, tl, sl] = [r.u8(), r.u8(), r.u8(), r.u8()];
  return {
    kind: 1,
    joinRef: r.str(jl),
    ref: r.str(rl),
    topic: r.str(tl),
    status: r.str(sl),
    data: r.rest(),
  };
}

/** Kind 3, a client's user broadcast push. */
function decodeUserBroadcastPush(r: Reader): BinaryFrame {
  const [jl, rl, tl, ul, ml, enc] = [r.u8(), r.u8(), r.u8(), r.u8(), r.u8(), r.u8()];
  const joinRef = r.str(jl);
  const ref = r.str(rl);
  const topic = r.str(tl);
  const userEvent = r.str(ul);
  const metadata = parseMetadata(r.str(ml));
  return { kind: 3, joinRef, ref, topic, userEvent, metadata, encoding: enc, payload: r.rest() };
}

/** Kind 4, a user broadcast as the server fans it out. */
function decodeUserBroadcast(r: Reader): BinaryFrame {
  const [tl, ul, ml, enc] = [r.u8(), r.u8(), r.u8(), r.u8()];
  const topic = r.str(tl);
  const userEvent = r.str(ul);
  const metadata = parseMetadata(r.str(ml));
  return { kind: 4, topic, userEvent, metadata, encoding: enc, payload: r.rest() };
}

/**
 * Decodes a binary frame. Kind 0 has two layouts, so the sender's side must be given.
 */
export function decodeBinary(buf: Uint8Array, from: 'client' | 'server'): BinaryFrame {
  const r = new Reader(buf);
  const kind = r.u8();
  switch (kind) {
    case KIND.push:
      return decodePush(r, from);
    case KIND.reply:
      return decodeReply(r);
    case KIND.broadcast: {
      const [tl, el] = [r.u8(), r.u8()];
      return { kind: 2, topic: r.str(tl), event: r.str(el), data: r.rest() };
    }
    case KIND.userBroadcastPush:
      return decodeUserBroadcastPush(r);
    case KIND.userBroadcast:
      return decodeUserBroadcast(r);
    default:
      throw new FrameError(`unknown binary frame kind ${kind}`);
  }
}

/**
 * The broadcast payload a client sees for a kind 3/4 frame: realtime-js decodes kind 4 into
 * `{type:"broadcast", event, payload, meta?}` (docs/PROTOCOL.md §2.3).
 */
export function userBroadcastPayload(f: {
  userEvent: string;
  metadata: Record<string, unknown> | null;
  encoding: number;
  payload: Uint8Array;
}): { type: 'broadcast'; event: string; payload: unknown; meta?: Record<string, unknown> } {
  let payload: unknown = f.payload;
  if (f.encoding === ENCODING.json) {
    try {
      payload = JSON.parse(textDecoder.decode(f.payload));
    } catch {
      throw new FrameError('user broadcast JSON payload does not parse');
    }
  }
  const out: {
    type: 'broadcast';
    event: string;
    payload: unknown;
    meta?: Record<string, unknown>;
  } = {
    type: 'broadcast',
    event: f.userEvent,
    payload,
  };
  if (f.metadata) out.meta = f.metadata;
  return out;
}

/** Converts any binary frame to the Frame a Phoenix client would dispatch. */
export function binaryToFrame(b: BinaryFrame): Frame {
  switch (b.kind) {
    case 0:
      return {
        joinRef: b.joinRef,
        ref: b.from === 'client' ? b.ref : null,
        topic: b.topic,
        event: b.event,
        payload: b.data,
      };
    case 1:
      return {
        joinRef: b.joinRef,
        ref: b.ref,
        topic: b.topic,
        event: EV.reply,
        payload: { status: b.status, response: b.data },
      };
    case 2:
      return { joinRef: null, ref: null, topic: b.topic, event: b.event, payload: b.data };
    case 3:
      return {
        joinRef: b.joinRef || null,
        ref: b.ref || null,
        topic: b.topic,
        event: EV.broadcast,
        payload: userBroadcastPayload(b),
      };
    case 4:
      return {
        joinRef: null,
        ref: null,
        topic: b.topic,
        event: EV.broadcast,
        payload: userBroadcastPayload(b),
      };
  }
}
