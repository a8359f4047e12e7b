/**
 * A cheaper reader of the frames a server sends. `ws` hands every socket
 * chunk to its Receiver, a Writable stream: per chunk a stream write, a deferred callback
 * (process.nextTick) and per frame two emitted events before a 'message' listener runs. At
 * tens of thousands of deliveries a second that machinery costs more than everything rtcap
 * does with a delivery. This reader parses the frames of a chunk in place and calls back
 * once per complete message, with a view of the payload (no copy).
 *
 * It handles only what a Phoenix server sends on the hot path: unmasked, unfragmented text
 * and binary frames, pings (answered by the caller) and pongs. At the first frame of any other
 * kind — close, a fragment, reserved bits, a masked frame, a payload above `maxPayloadBytes`
 * — it stops and returns that frame's bytes onwards, so the caller gives them and the rest of
 * the connection back to `ws`, which then handles close handshakes and protocol errors as it
 * always does. Pure: no sockets, no timers.
 */
import { WS_FIN, WS_LEN16, WS_LEN64, WS_MASK, WS_OPCODE, WS_RSV } from '../protocol/constants.js';

export interface FrameSink {
  message(payload: Buffer, isBinary: boolean): void;
  ping(payload: Buffer): void;
}

/** The longest header: 2 bytes, a 64-bit length (8); server frames carry no mask key. */
const MAX_HEADER = 10;

export class FrameReader {
  /** Bytes of an incomplete frame, waiting for the rest. */
  private parts: Buffer[] = [];
  private buffered = 0;
  /** How many buffered bytes the incomplete frame needs (its header and payload), when known. */
  private need = 0;

  constructor(
    private readonly sink: FrameSink,
    private readonly maxPayloadBytes: number,
  ) {}

  /**
   * Reads a socket chunk. Returns null when every byte was taken (complete frames delivered,
   * an incomplete one kept), or the bytes from the first frame this reader does not handle:
   * the caller must hand those, and every later chunk, to `ws`.
   */
  feed(chunk: Buffer): Buffer | null {
    let buf = chunk;
    if (this.buffered > 0) {
      this.parts.push(chunk);
      this.buffered += chunk.length;
      if (this.buffered < this.need) return null;
      buf = Buffer.concat(this.parts, this.buffered);
      this.parts = [];
      this.buffered = 0;
    }
    let off = 0;
    const n = buf.length;
    while (off < n) {
      if (n - off < 2) return this.keep(buf, off, 2);
      const b0 = buf[off];
      const b1 = buf[off + 1];
      const opcode = b0 & 0x0f;
      if ((b0 & WS_FIN) === 0 || (b0 & WS_RSV) !== 0 || (b1 & WS_MASK) !== 0)
        return buf.subarray(off);
      let len = b1 & 0x7f;
      let head = 2;
      if (len === WS_LEN16) {
        if (n - off < 4) return this.keep(buf, off, 4);
        len = buf.readUInt16BE(off + 2);
        head = 4;
      } else if (len === WS_LEN64) {
        if (n - off < MAX_HEADER) return this.keep(buf, off, MAX_HEADER);
        // Above 2^32 − 1 is far above any maxPayload: ws refuses it.
        if (buf.readUInt32BE(off + 2) !== 0) return buf.subarray(off);
        len = buf.readUInt32BE(off + 6);
        head = MAX_HEADER;
      }
      if (len > this.maxPayloadBytes) return buf.subarray(off);
      const end = off + head + len;
      if (opcode === WS_OPCODE.text || opcode === WS_OPCODE.binary) {
        if (end > n) return this.keep(buf, off, head + len);
        this.sink.message(buf.subarray(off + head, end), opcode === WS_OPCODE.binary);
      } else if (opcode === WS_OPCODE.ping) {
        if (end > n) return this.keep(buf, off, head + len);
        this.sink.ping(buf.subarray(off + head, end));
      } else if (opcode === WS_OPCODE.pong) {
        if (end > n) return this.keep(buf, off, head + len);
      } else {
        return buf.subarray(off); // close, continuation, reserved opcodes: ws's business
      }
      off = end;
    }
    return null;
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
