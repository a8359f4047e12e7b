/**
 * The client's heartbeat as bytes (docs/PROTOCOL.md §2.4): the complete masked WebSocket frame of
 * a heartbeat, built without JSON.stringify, and its `ok` reply recognised from its bytes,
 * without UTF-8 decoding or JSON.parse. Holding hundreds of thousands of idle connections, a
 * generator's CPU goes on heartbeats (docs/PERFORMANCE.md, "Built-in server: CPU per heartbeat").
 *
 * Both are the general encoder's own output, cut around the ref: the heads and tails below are
 * `encodeFrame` of the heartbeat (and of its reply) split where the ref goes, so a pre-framed
 * heartbeat carries byte for byte the text the general path sends. A ref JSON would escape,
 * or one that is not printable ASCII, is refused (null / false): the caller then takes the
 * general path. Pure: no I/O; the mask key comes from the caller.
 */
import { EV, PHOENIX_TOPIC, VSN_1, VSN_2, type Vsn } from './constants.js';
import { encodeFrame } from './frame.js';

/** Where the ref goes in a template: a string no envelope key or value contains. */
const MARK = '@REF@';

interface Template {
  head: Buffer;
  tail: Buffer;
}

/** `text` cut around its one `"MARK"`: head ends with the ref's opening quote. */
function template(text: string): Template {
  const at = text.indexOf(MARK);
  return {
    head: Buffer.from(text.slice(0, at)),
    tail: Buffer.from(text.slice(at + MARK.length)),
  };
}

const heartbeatText = (vsn: Vsn) =>
  encodeFrame(
    { joinRef: null, ref: MARK, topic: PHOENIX_TOPIC, event: EV.heartbeat, payload: {} },
    vsn,
    'client',
  );

const replyText = (vsn: Vsn, payload: unknown) =>
  encodeFrame(
    { joinRef: null, ref: MARK, topic: PHOENIX_TOPIC, event: EV.reply, payload },
    vsn,
    'server',
  );

const HEARTBEAT: Record<Vsn, Template> = {
  [VSN_1]: template(heartbeatText(VSN_1)),
  [VSN_2]: template(heartbeatText(VSN_2)),
};

/**
 * The ok replies recognised, per vsn: the key order rtcap's built-in server writes
 * (`{"status":"ok","response":{}}`, docs/PROTOCOL.md §2.4), and the order Phoenix writes (its
 * JSON encoder, Jason, sorts the keys of small maps: `{"response":{},"status":"ok"}`, and for v1
 * the envelope's too). Any other form is read by the general path, with the same outcome.
 */
const REPLIES: Record<Vsn, Template[]> = {
  [VSN_1]: [
    template(replyText(VSN_1, { status: 'ok', response: {} })),
    template(replyText(VSN_1, { response: {}, status: 'ok' })),
    template(
      JSON.stringify({
        event: EV.reply,
        payload: { response: {}, status: 'ok' },
        ref: MARK,
        topic: PHOENIX_TOPIC,
      }),
    ),
  ],
  [VSN_2]: [
    template(replyText(VSN_2, { status: 'ok', response: {} })),
    template(replyText(VSN_2, { response: {}, status: 'ok' })),
  ],
};

/** FIN + text opcode; the mask bit on a 7-bit length (a client frame of ≤ 125 bytes). */
const OP_TEXT = 0x81;
const MASKED = 0x80;
const MAX_SHORT_LENGTH = 125;
const MASK_BYTES = 4;
const HEADER_BYTES = 2 + MASK_BYTES;

/** Whether JSON.stringify writes `ref` as it is (printable ASCII other than `"` and `\`). */
function plainRef(ref: string): boolean {
  for (let i = 0; i < ref.length; i++) {
    const c = ref.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return false;
  }
  return true;
}

/**
 * The complete client frame of a heartbeat with `ref` (FIN, text, masked with the 4 bytes of
 * `key` at `keyOffset`), the same text `encodeFrame` gives for `vsn`; null when `ref` is not
 * plain ASCII or the frame would need a longer length field.
 */
export function heartbeatFrame(
  ref: string,
  vsn: Vsn,
  key: Uint8Array,
  keyOffset: number,
): Buffer | null {
  const { head, tail } = HEARTBEAT[vsn];
  const length = head.length + ref.length + tail.length;
  if (length > MAX_SHORT_LENGTH || !plainRef(ref)) return null;
  const frame = Buffer.allocUnsafe(HEADER_BYTES + length);
  frame[0] = OP_TEXT;
  frame[1] = MASKED | length;
  for (let i = 0; i < MASK_BYTES; i++) frame[2 + i] = key[keyOffset + i];
  head.copy(frame, HEADER_BYTES);
  const refAt = HEADER_BYTES + head.length;
  for (let i = 0; i < ref.length; i++) frame[refAt + i] = ref.charCodeAt(i);
  tail.copy(frame, refAt + ref.length);
  for (let i = 0; i < length; i++) frame[HEADER_BYTES + i] ^= frame[2 + (i & 3)];
  return frame;
}

function matches(data: Uint8Array, t: Template, ref: string): boolean {
  const { head, tail } = t;
  if (data.length !== head.length + ref.length + tail.length) return false;
  for (let i = 0; i < head.length; i++) if (data[i] !== head[i]) return false;
  const refAt = head.length;
  for (let i = 0; i < ref.length; i++) if (data[refAt + i] !== ref.charCodeAt(i)) return false;
  const tailAt = refAt + ref.length;
  for (let i = 0; i < tail.length; i++) if (data[tailAt + i] !== tail[i]) return false;
  return true;
}

/**
 * Whether `data`, a complete text message from the server, is the `ok` reply to the heartbeat
 * with `ref` in one of the recognised forms. False says only "not recognised": the caller reads
 * the message the general way (an error reply, another form, another frame).
 */
export function isHeartbeatOk(data: Uint8Array, ref: string, vsn: Vsn): boolean {
  if (!plainRef(ref)) return false;
  for (const t of REPLIES[vsn]) if (matches(data, t, ref)) return true;
  return false;
}
