/**
 * Whether a JSON text frame's event is a given one, read from its bytes without decoding it
 * (the receive hot path: the phoenix dialect counts as a delivery only a stamped frame of
 * `target.receive_event`, not a push's reply that carries the pushed payload back).
 *
 * - vsn 2.0.0, a JSON array `[join_ref, ref, topic, event, payload]`: the fourth element, after
 *   three null, number or string elements (strings with their escapes skipped);
 * - vsn 1.0.0, a JSON object: the first `"event"` key, followed by `:` — the envelope's, since
 *   the payload comes after it in Phoenix's encoding (keys in order: event, payload, ref,
 *   topic) and rtcap's stamp has no such key.
 *
 * Pure: bytes in, a boolean out.
 */
import { VSN_1, type Vsn } from './constants.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACKET = 0x5b;
const EVENT_KEY = Buffer.from('"event"');

function skipSpace(buf: Uint8Array, pos: number): number {
  while (
    pos < buf.length &&
    (buf[pos] === 0x20 || buf[pos] === 0x0a || buf[pos] === 0x0d || buf[pos] === 0x09)
  )
    pos++;
  return pos;
}

/** The position after a JSON string starting at `pos` (its opening quote); -1 if unterminated. */
function afterString(buf: Uint8Array, pos: number): number {
  for (let i = pos + 1; i < buf.length; i++) {
    if (buf[i] === BACKSLASH) i++;
    else if (buf[i] === QUOTE) return i + 1;
  }
  return -1;
}

/** The position after a null, number or string element at `pos`; -1 for anything else. */
function afterScalar(buf: Uint8Array, pos: number): number {
  if (buf[pos] === QUOTE) return afterString(buf, pos);
  let i = pos;
  while (i < buf.length && buf[i] !== COMMA && buf[i] !== 0x5d && buf[i] !== 0x20) {
    // Only null and numbers: an object or array element is not an envelope field.
    if (buf[i] === 0x7b || buf[i] === OPEN_BRACKET || buf[i] === QUOTE) return -1;
    i++;
  }
  return i > pos ? i : -1;
}

/** Whether the bytes at `pos` are `quoted` (a JSON string, quotes included). */
function startsWith(buf: Uint8Array, pos: number, quoted: Uint8Array): boolean {
  if (pos + quoted.length > buf.length) return false;
  for (let i = 0; i < quoted.length; i++) if (buf[pos + i] !== quoted[i]) return false;
  return true;
}

/** The event of a v2 array frame is `quoted`. */
function arrayEventIs(buf: Uint8Array, quoted: Uint8Array): boolean {
  let pos = skipSpace(buf, 0);
  if (buf[pos] !== OPEN_BRACKET) return false;
  pos++;
  for (let k = 0; k < 3; k++) {
    pos = afterScalar(buf, skipSpace(buf, pos));
    if (pos < 0) return false;
    pos = skipSpace(buf, pos);
    if (buf[pos] !== COMMA) return false;
    pos++;
  }
  return startsWith(buf, skipSpace(buf, pos), quoted);
}

/** The first `"event":` of a v1 object frame is followed by `quoted`. */
function objectEventIs(buf: Buffer, quoted: Uint8Array): boolean {
  for (let at = buf.indexOf(EVENT_KEY); at >= 0; at = buf.indexOf(EVENT_KEY, at + 1)) {
    const colon = skipSpace(buf, at + EVENT_KEY.length);
    if (buf[colon] !== COLON) continue;
    return startsWith(buf, skipSpace(buf, colon + 1), quoted);
  }
  return false;
}

/** The event as the frame carries it: a JSON string, quotes included. */
export function quotedEvent(event: string): Buffer {
  return Buffer.from(JSON.stringify(event));
}

/** Whether text frame `buf` (vsn `vsn`) has the event `quoted` (from quotedEvent). */
export function frameEventIs(buf: Buffer, vsn: Vsn, quoted: Uint8Array): boolean {
  return vsn === VSN_1 ? objectEventIs(buf, quoted) : arrayEventIs(buf, quoted);
}
