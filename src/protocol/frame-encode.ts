/**
 * Phoenix frames encoded for the wire (docs/PROTOCOL.md §2.1–§2.3): v1 JSON objects, v2 JSON
 * arrays, and v2 binary kinds 0–4. Pure functions: no I/O.
 */
import { ENCODING, KIND } from './constants.js';
import { FrameError, type Frame, type UserBroadcast } from './frame-types.js';

const textEncoder = new TextEncoder();

// ---------------------------------------------------------------- v1: JSON objects
// (docs/PROTOCOL.md §2.1)

/**
 * Client → server frames carry `join_ref`; server → client frames never do (docs/PROTOCOL.md §2.1).
 */
export function encodeV1(frame: Frame, from: 'client' | 'server'): string {
  if (from === 'client') {
    return JSON.stringify({
      topic: frame.topic,
      event: frame.event,
      payload: frame.payload,
      ref: frame.ref,
      join_ref: frame.joinRef,
    });
  }
  return JSON.stringify({
    topic: frame.topic,
    event: frame.event,
    payload: frame.payload,
    ref: frame.ref,
  });
}

// ---------------------------------------------------------------- v2: JSON arrays
// (docs/PROTOCOL.md §2.2)

export function encodeV2(frame: Frame): string {
  return JSON.stringify([frame.joinRef, frame.ref, frame.topic, frame.event, frame.payload]);
}

// ---------------------------------------------------------------- v2 binary
// (docs/PROTOCOL.md §2.3)

function field(s: string, name: string): Uint8Array {
  const b = textEncoder.encode(s);
  if (b.length > 255) throw new FrameError(`${name} is longer than 255 bytes`);
  return b;
}

function concat(header: number[], parts: Uint8Array[]): Uint8Array {
  let len = header.length;
  for (const p of parts) len += p.length;
  const out = new Uint8Array(len);
  out.set(header, 0);
  let off = header.length;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

function payloadBytes(b: UserBroadcast): { bytes: Uint8Array; encoding: number } {
  if (b.payload instanceof Uint8Array)
    return { bytes: b.payload, encoding: b.encoding ?? ENCODING.binary };
  return { bytes: textEncoder.encode(JSON.stringify(b.payload)), encoding: ENCODING.json };
}

/** A user broadcast's metadata as JSON bytes; none (or an empty object) is no bytes. */
function metadataField(b: UserBroadcast): Uint8Array {
  const m = b.metadata;
  return field(m && Object.keys(m).length ? JSON.stringify(m) : '', 'metadata');
}

/**
 * Kind 3: the user-broadcast push current realtime-js sends for every `broadcast`
 * (docs/PROTOCOL.md §2.3).
 */
export function encodeUserBroadcastPush(
  b: UserBroadcast & { joinRef: string | null; ref: string | null },
): Uint8Array {
  const jr = field(b.joinRef ?? '', 'join_ref');
  const ref = field(b.ref ?? '', 'ref');
  const topic = field(b.topic, 'topic');
  const ev = field(b.userEvent, 'user event');
  const meta = metadataField(b);
  const { bytes, encoding } = payloadBytes(b);
  return concat(
    [KIND.userBroadcastPush, jr.length, ref.length, topic.length, ev.length, meta.length, encoding],
    [jr, ref, topic, ev, meta, bytes],
  );
}

/**
 * Kind 4: what the server fans out to v2 subscribers when the sender used kind 3
 * (docs/PROTOCOL.md §2.3).
 */
export function encodeUserBroadcast(b: UserBroadcast): Uint8Array {
  const topic = field(b.topic, 'topic');
  const ev = field(b.userEvent, 'user event');
  const meta = metadataField(b);
  const { bytes, encoding } = payloadBytes(b);
  return concat(
    [KIND.userBroadcast, topic.length, ev.length, meta.length, encoding],
    [topic, ev, meta, bytes],
  );
}

/** Kind 1 reply, server → client, for servers that answer binary pushes in binary. */
export function encodeBinaryReply(f: {
  joinRef: string;
  ref: string;
  topic: string;
  status: string;
  data: Uint8Array;
}): Uint8Array {
  const parts = [
    field(f.joinRef, 'join_ref'),
    field(f.ref, 'ref'),
    field(f.topic, 'topic'),
    field(f.status, 'status'),
  ];
  return concat([KIND.reply, ...parts.map((p) => p.length)], [...parts, f.data]);
}

/** Kind 0 push, client → client or server → client layout. */
export function encodeBinaryPush(
  f: { joinRef: string; ref?: string; topic: string; event: string; data: Uint8Array },
  from: 'client' | 'server',
): Uint8Array {
  if (from === 'client') {
    const parts = [
      field(f.joinRef, 'join_ref'),
      field(f.ref ?? '', 'ref'),
      field(f.topic, 'topic'),
      field(f.event, 'event'),
    ];
    return concat([KIND.push, ...parts.map((p) => p.length)], [...parts, f.data]);
  }
  const parts = [field(f.joinRef, 'join_ref'), field(f.topic, 'topic'), field(f.event, 'event')];
  return concat([KIND.push, ...parts.map((p) => p.length)], [...parts, f.data]);
}

/** Kind 2 broadcast, server → client. */
export function encodeBinaryBroadcast(f: {
  topic: string;
  event: string;
  data: Uint8Array;
}): Uint8Array {
  const parts = [field(f.topic, 'topic'), field(f.event, 'event')];
  return concat([KIND.broadcast, ...parts.map((p) => p.length)], [...parts, f.data]);
}
