/**
 * The heartbeat's short way through the server: a v2 heartbeat in the exact form every
 * Phoenix client sends, `[null,"REF","phoenix","heartbeat",{}]`, is recognised from its bytes
 * and answered with its reply's bytes, `[null,"REF","phoenix","phx_reply",{"status":"ok",
 * "response":{}}]` framed, built by copying REF between a fixed head and tail: no UTF-8
 * decoding, JSON parse or stringify, per heartbeat. Any other form (a join_ref, whitespace, a
 * payload other than `{}`, a REF with a character JSON would escape or that is not printable
 * ASCII, v1) is not recognised and takes the general path (connection.ts), whose reply is
 * byte for byte the same (test/server/heartbeat.test.ts compares the two).
 */
import { EV, PHOENIX_TOPIC } from '../protocol/constants.js';

const HEAD = Buffer.from('[null,"');
const TAIL = Buffer.from(`",${JSON.stringify(PHOENIX_TOPIC)},${JSON.stringify(EV.heartbeat)},{}]`);
const REPLY_TAIL = Buffer.from(
  `",${JSON.stringify(PHOENIX_TOPIC)},${JSON.stringify(EV.reply)},{"status":"ok","response":{}}]`,
);
/** FIN + text opcode; the reply is short enough for the 7-bit length of a 2-byte header. */
const OP_TEXT = 0x81;
const MAX_SHORT_LENGTH = 125;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The complete WebSocket frame answering `data` (a v2 text frame's payload) when it is a
 * heartbeat in the one recognised form; null otherwise.
 */
export function heartbeatReply(data: Buffer): Buffer | null {
  const refEnd = data.length - TAIL.length;
  if (refEnd < HEAD.length) return null;
  if (data.compare(HEAD, 0, HEAD.length, 0, HEAD.length) !== 0) return null;
  if (data.compare(TAIL, 0, TAIL.length, refEnd, data.length) !== 0) return null;
  for (let i = HEAD.length; i < refEnd; i++) {
    const b = data[i];
    // JSON.stringify writes printable ASCII other than " and \ as it is: the bytes are the ref.
    if (b < 0x20 || b > 0x7e || b === QUOTE || b === BACKSLASH) return null;
  }
  const refLength = refEnd - HEAD.length;
  const length = HEAD.length + refLength + REPLY_TAIL.length;
  if (length > MAX_SHORT_LENGTH) return null;
  const frame = Buffer.allocUnsafe(2 + length);
  frame[0] = OP_TEXT;
  frame[1] = length;
  HEAD.copy(frame, 2);
  data.copy(frame, 2 + HEAD.length, HEAD.length, refEnd);
  REPLY_TAIL.copy(frame, 2 + HEAD.length + refLength);
  return frame;
}
