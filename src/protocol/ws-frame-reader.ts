/**
 * One reader of WebSocket frames (RFC 6455 §5.2) for both of rtcap's ends, in place of ws's
 * Receiver on the hot path. ws hands every socket chunk to its Receiver, a Writable stream: per
 * chunk a stream write and a deferred callback, per frame two emitted events before a 'message'
 * listener runs. At tens of thousands of frames a second that machinery costs more than what
 * rtcap does with a frame. This reader parses the frames of a chunk in place and calls back once
 * per complete message with a view of the payload (no copy), unmasked there when frames arrive
 * masked (as ws does).
 *
 * Masking is its parameter (RFC 6455 §5.1): a server reads masked frames, as every client frame
 * is; a client reads unmasked ones, as no server masks. It reads only what the hot path carries:
 * unfragmented (FIN set) text and binary frames, and, when the sink takes pings, pings (answered
 * by the caller) and pongs (dropped). At the first frame of any other kind (close, a fragment or
 * continuation, reserved bits or opcodes, the other masking, a payload above `maxPayloadBytes`,
 * a ping or pong the sink does not take, a control frame above 125 bytes) it stops and returns
 * that frame's bytes onwards: the caller gives them, and the rest of the connection, back to ws,
 * which answers, closes and refuses exactly as it always does. Pure: no sockets, no timers.
 */
import { WS_FIN, WS_LEN16, WS_LEN64, WS_MASK, WS_OPCODE, WS_RSV } from './constants.js';

/** Where a reader's frames go. */
export interface FrameSink {
  message(payload: Buffer, isBinary: boolean): void;
  /** A ping's payload, for the caller to answer. Absent: pings and pongs go back to ws. */
  ping?(payload: Buffer): void;
}

const MASK_KEY_BYTES = 4;
/** The largest payload a control frame may carry (RFC 6455 §5.5). */
const MAX_CONTROL_PAYLOAD = 125;
/** Shared by every reader with nothing buffered (never written to): no array per connection. */
const NO_PARTS: Buffer[] = [];

export class WsFrameReader {
  /** Bytes of an incomplete frame, waiting for the rest. */
  private parts: Buffer[] = NO_PARTS;
  private buffered = 0;
  /** How many buffered bytes the incomplete frame needs (its header, or header and payload). */
  private need = 0;

  constructor(
    private readonly sink: FrameSink,
    /** Whether frames arrive masked: true for a server's reader, false for a client's. */
    private readonly masked: boolean,
    private readonly maxPayloadBytes: number,
  ) {}

  /**
   * Reads a socket chunk. Returns null when every byte was taken (complete frames delivered,
   * an incomplete one kept), or the bytes from the first frame this reader does not handle,
   * buffered bytes included: the caller must hand those, and every later chunk, to ws.
   */
  feed(chunk: Buffer): Buffer | null {
    let buf = chunk;
    if (this.buffered > 0) {
      this.parts.push(chunk);
      this.buffered += chunk.length;
      if (this.buffered < this.need) return null;
      buf = Buffer.concat(this.parts, this.buffered);
      this.parts = NO_PARTS;
      this.buffered = 0;
    }
    const { sink, maxPayloadBytes } = this;
    const maskBit = this.masked ? WS_MASK : 0;
    const keyBytes = this.masked ? MASK_KEY_BYTES : 0;
    const n = buf.length;
    let off = 0;
    while (off < n) {
      if (n - off < 2) return this.keep(buf, off, 2);
      const b0 = buf[off];
      const b1 = buf[off + 1];
      if ((b0 & WS_FIN) === 0 || (b0 & WS_RSV) !== 0 || (b1 & WS_MASK) !== maskBit)
        return buf.subarray(off);
      let len = b1 & 0x7f;
      const head = (len === WS_LEN16 ? 4 : len === WS_LEN64 ? 10 : 2) + keyBytes;
      if (n - off < head) return this.keep(buf, off, head);
      if (len === WS_LEN16) len = buf.readUInt16BE(off + 2);
      else if (len === WS_LEN64) {
        // Above 2^32 − 1 is far above any maxPayload: ws refuses it.
        if (buf.readUInt32BE(off + 2) !== 0) return buf.subarray(off);
        len = buf.readUInt32BE(off + 6);
      }
      if (len > maxPayloadBytes) return buf.subarray(off);
      const opcode = b0 & 0x0f;
      const isData = opcode === WS_OPCODE.text || opcode === WS_OPCODE.binary;
      if (!isData && !this.takesControl(opcode, len)) return buf.subarray(off);
      const start = off + head;
      const end = start + len;
      if (end > n) return this.keep(buf, off, head + len);
      if (keyBytes !== 0) unmask(buf, start - keyBytes, start, end);
      if (isData) sink.message(buf.subarray(start, end), opcode === WS_OPCODE.binary);
      else if (opcode === WS_OPCODE.ping) sink.ping?.(buf.subarray(start, end));
      off = end;
    }
    return null;
  }

  /** Whether this reader reads a control frame itself: a ping or pong, if the sink takes pings. */
  private takesControl(opcode: number, len: number): boolean {
    return (
      (opcode === WS_OPCODE.ping || opcode === WS_OPCODE.pong) &&
      len <= MAX_CONTROL_PAYLOAD &&
      this.sink.ping !== undefined
    );
  }

  /** Keeps buf[off..] until `need` bytes of the frame starting there are buffered. */
  private keep(buf: Buffer, off: number, need: number): null {
    const rest = buf.subarray(off);
    this.parts = [rest];
    this.buffered = rest.length;
    this.need = need;
    return null;
  }
}

/** XORs buf[start..end) with the 4-byte mask key at buf[key..key+4), in place. */
function unmask(buf: Buffer, key: number, start: number, end: number): void {
  for (let i = start; i < end; i++) buf[i] ^= buf[key + ((i - start) & 3)];
}
