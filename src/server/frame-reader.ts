/**
 * The server's own reader of the frames a client sends, in place of ws's Receiver on the hot
 * path. ws hands every socket chunk to its Receiver, a Writable stream: per chunk a stream write
 * and a deferred callback, per frame two emitted events before the 'message' listener runs. For
 * an idle connection's heartbeat (one 40-byte frame a chunk) that machinery is a large part of
 * the server's JavaScript per heartbeat (docs/PERFORMANCE.md, "Built-in server: CPU per
 * heartbeat"). This reader parses the frames of a chunk in place, unmasks them there (as ws
 * does), and calls back once per complete message with a view of the payload (no copy).
 *
 * It handles only what a client sends on the hot path: masked, unfragmented (FIN set) text
 * and binary frames. At the first frame of any other kind (close, ping, pong, a fragment,
 * reserved bits, an unmasked frame, a payload above `maxPayloadBytes`)
 * it stops and returns that frame's bytes onwards: the caller gives them, and the rest of the
 * connection, back to ws, which closes, answers and refuses exactly as it always does. Pure: no
 * sockets, no timers.
 */
import { WS_FIN, WS_LEN16, WS_LEN64, WS_MASK, WS_OPCODE, WS_RSV } from '../protocol/constants.js';

export type MessageSink = (payload: Buffer, isBinary: boolean) => void;

const MASK_BYTES = 4;
/** Shared by every reader with nothing buffered (never written to): no array per connection. */
const NO_PARTS: Buffer[] = [];

export class ClientFrameReader {
  /** Bytes of an incomplete frame, waiting for the rest. */
  private parts: Buffer[] = NO_PARTS;
  private buffered = 0;
  /** How many buffered bytes the incomplete frame needs (its header and payload), when known. */
  private need = 0;

  constructor(
    private readonly message: MessageSink,
    private readonly maxPayloadBytes: number,
  ) {}

  /**
   * Reads a socket chunk. Returns null when every byte was taken (complete frames delivered,
   * an incomplete one kept), or the bytes from the first frame this reader does not handle:
   * the caller must hand those, and every later chunk, to ws.
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
    let off = 0;
    const n = buf.length;
    while (off < n) {
      const head = this.headerLength(buf, off);
      if (head === 0) return this.keep(buf, off, n - off + 1); // the header is not all here
      if (head < 0) return buf.subarray(off);
      const len = this.payloadLength(buf, off);
      const opcode = buf[off] & 0x0f;
      // Close, ping, pong, continuation, reserved opcodes, oversized payloads: ws's business.
      if (opcode !== WS_OPCODE.text && opcode !== WS_OPCODE.binary) return buf.subarray(off);
      if (len > this.maxPayloadBytes) return buf.subarray(off);
      const start = off + head;
      const end = start + len;
      if (end > n) return this.keep(buf, off, head + len);
      unmask(buf, start - MASK_BYTES, start, end);
      this.message(buf.subarray(start, end), opcode === WS_OPCODE.binary);
      off = end;
    }
    return null;
  }

  /**
   * The header's length (mask key included) of the frame at `off`; 0 when not all of it is
   * here yet, -1 when it is not a frame this reader handles (no FIN, reserved bits, unmasked,
   * a length beyond 2^32 − 1).
   */
  private headerLength(buf: Buffer, off: number): number {
    const avail = buf.length - off;
    if (avail < 2) return 0;
    const b0 = buf[off];
    const b1 = buf[off + 1];
    if ((b0 & WS_FIN) === 0 || (b0 & WS_RSV) !== 0 || (b1 & WS_MASK) === 0) return -1;
    const marker = b1 & 0x7f;
    const head = marker === WS_LEN16 ? 4 : marker === WS_LEN64 ? 10 : 2;
    if (avail < head + MASK_BYTES) return 0;
    if (marker === WS_LEN64 && buf.readUInt32BE(off + 2) !== 0) return -1;
    return head + MASK_BYTES;
  }

  private payloadLength(buf: Buffer, off: number): number {
    const marker = buf[off + 1] & 0x7f;
    if (marker === WS_LEN16) return buf.readUInt16BE(off + 2);
    if (marker === WS_LEN64) return buf.readUInt32BE(off + 6);
    return marker;
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
