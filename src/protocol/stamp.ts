/**
 * rtcap's bench stamp: every measured message carries `{"id":seq,"s":stream,"t":ms}` in its
 * user payload (docs/FIGURES.md "Measurement rules": latency from the scheduled send time).
 * `t` is the scheduled send time in epoch ms with sub-ms precision, `s` names the sending stream
 * (one per sender and topic), `id` is the sequence number within the stream.
 *
 * The receive hot path must not JSON-parse every delivery: `scanStamp` finds the three keys
 * in the raw frame bytes, whatever the encoding (v1 object, v2 array, v2 binary kind 4) and
 * whatever key order the server's JSON encoder chose (Elixir's Jason sorts small maps).
 * The keys `"id":`, `"s":` and `"t":` are found outside the padding (the string under key `p`)
 * because rtcap pads with `x` characters only and no Phoenix envelope key is spelled that way.
 * Other traffic rtcap stamps (presence metas, database rows) uses other key names, so cannot be
 * mistaken for a broadcast stamp.
 */
import { r3 } from '../util/round.js';

export interface Stamp {
  id: number;
  stream: number;
  sentAtMs: number;
}

const PAD_CHAR = 'x';

/**
 * A padding string reused across sends of one size: repeat() per message costs at 100 KB payloads.
 */
export class StampEncoder {
  private pad = '';
  private padFor = -1;
  constructor(readonly payloadBytes: number) {}
  payload(id: number, stream: number, sentAtMs: number): Record<string, unknown> {
    const base = { id, s: stream, t: r3(sentAtMs) } as Record<string, unknown>;
    const len = JSON.stringify(base).length + ',"p":""'.length;
    const padLen = this.payloadBytes > len ? this.payloadBytes - len : 0;
    if (padLen !== this.padFor) {
      this.pad = PAD_CHAR.repeat(padLen);
      this.padFor = padLen;
    }
    // At exactly the minimum the empty pad `"p":""` is what makes the length come out right.
    if (this.payloadBytes >= len) base.p = this.pad;
    return base;
  }
}

/** Parses an unsigned decimal number (digits, optional fraction) at `pos`; NaN if none. */
function parseNumberAt(buf: Uint8Array, pos: number): number {
  const n = buf.length;
  while (pos < n && buf[pos] === 0x20) pos++;
  let neg = false;
  if (pos < n && buf[pos] === 0x2d) {
    neg = true;
    pos++;
  }
  let int = 0;
  let digits = 0;
  while (pos < n) {
    const c = buf[pos] - 0x30;
    if (c < 0 || c > 9) break;
    int = int * 10 + c;
    pos++;
    digits++;
  }
  if (digits === 0) return NaN;
  if (pos < n && buf[pos] === 0x2e) {
    pos++;
    let frac = 0;
    let scale = 1;
    while (pos < n) {
      const c = buf[pos] - 0x30;
      if (c < 0 || c > 9) break;
      if (scale < 1e9) {
        frac = frac * 10 + c;
        scale *= 10;
      }
      pos++;
    }
    int += frac / scale;
  }
  // Exponent forms (1.7e12) come from encoders that shorten floats; rare, so parse them the slow
  // way.
  if (pos < n && (buf[pos] === 0x65 || buf[pos] === 0x45)) return NaN;
  return neg ? -int : int;
}

function slowNumberAt(buf: Buffer, pos: number): number {
  let end = pos;
  while (end < buf.length && buf[end] !== 0x2c && buf[end] !== 0x7d && buf[end] !== 0x5d) end++;
  return Number(buf.toString('latin1', pos, end));
}

function numberAt(buf: Buffer, pos: number): number {
  const v = parseNumberAt(buf, pos);
  return Number.isNaN(v) ? slowNumberAt(buf, pos) : v;
}

const QUOTE = 0x22;
const COLON = 0x3a;
const FOUND_ALL = 7;

/**
 * Finds the stamp in a raw frame. Returns false when the frame carries none (control
 * frames, foreign traffic), so the caller falls back to a full decode.
 *
 * One pass over the bytes, looking only at quote characters: `"t":`, `"id":`, `"s":` are read
 * in place, and the padding string `"p":"xxx…"` is skipped with a native indexOf, so a
 * 100 KB payload costs no more than a 64 B one. (Buffer.indexOf with a Buffer needle costs a
 * few hundred ns per call, more than this whole scan of a small frame.)
 */
export function scanStamp(buf: Buffer, out: Stamp): boolean {
  const n = buf.length - 4;
  let found = 0;
  let t = 0;
  let id = 0;
  let stream = 0;
  for (let i = 0; i < n; i++) {
    if (buf[i] !== QUOTE) continue;
    const c = buf[i + 1];
    if (c === 0x74 /* t */ && buf[i + 2] === QUOTE && buf[i + 3] === COLON) {
      t = numberAt(buf, i + 4);
      found |= 1;
    } else if (
      c === 0x69 /* i */ &&
      buf[i + 2] === 0x64 /* d */ &&
      buf[i + 3] === QUOTE &&
      buf[i + 4] === COLON
    ) {
      id = parseNumberAt(buf, i + 5);
      found |= 2;
    } else if (c === 0x73 /* s */ && buf[i + 2] === QUOTE && buf[i + 3] === COLON) {
      stream = parseNumberAt(buf, i + 4);
      found |= 4;
    } else if (
      c === 0x70 /* p */ &&
      buf[i + 2] === QUOTE &&
      buf[i + 3] === COLON &&
      buf[i + 4] === QUOTE
    ) {
      const close = buf.indexOf(QUOTE, i + 5);
      if (close < 0) break;
      i = close;
      continue;
    } else {
      continue;
    }
    if (found === FOUND_ALL) break;
  }
  if ((found & 3) !== 3 || Number.isNaN(t) || Number.isNaN(id)) return false;
  out.id = id;
  out.stream = found & 4 && !Number.isNaN(stream) ? stream : 0;
  out.sentAtMs = t;
  return true;
}

/** The same stamp from an already-decoded payload (slow path, and tests). */
export function readStamp(payload: unknown): Stamp | null {
  if (payload === null || typeof payload !== 'object') return null;
  const p = payload as Record<string, unknown>;
  if (typeof p.id === 'number' && typeof p.t === 'number') {
    return { id: p.id, stream: typeof p.s === 'number' ? p.s : 0, sentAtMs: p.t };
  }
  // Supabase broadcast envelope {type, event, payload:{id,s,t}}.
  if (p.payload !== undefined) return readStamp(p.payload);
  return null;
}
