/**
 * ClientFrameReader: the client frames it reads itself (masked, unfragmented text and binary),
 * unmasked, at every split of the byte stream; and the frames it hands back to ws with every
 * byte from there on.
 */
import { describe, expect, it } from 'vitest';
import { ClientFrameReader } from '../../src/server/frame-reader.js';

const MASK = Buffer.from([0x37, 0xfa, 0x21, 0x3d]);

/** A client frame: FIN + opcode, mask bit and key (unless `unmasked`), a 7, 16 or 64-bit length. */
function frame(
  opcode: number,
  payload: Buffer,
  opts: { fin?: boolean; rsv1?: boolean; unmasked?: boolean } = {},
): Buffer {
  const b0 = (opts.fin === false ? 0 : 0x80) | (opts.rsv1 ? 0x40 : 0) | opcode;
  const mask = opts.unmasked ? 0 : 0x80;
  let head: Buffer;
  if (payload.length < 126) head = Buffer.from([b0, mask | payload.length]);
  else if (payload.length < 65536) {
    head = Buffer.alloc(4);
    head[0] = b0;
    head[1] = mask | 126;
    head.writeUInt16BE(payload.length, 2);
  } else {
    head = Buffer.alloc(10);
    head[0] = b0;
    head[1] = mask | 127;
    head.writeBigUInt64BE(BigInt(payload.length), 2);
  }
  if (opts.unmasked) return Buffer.concat([head, payload]);
  const masked = Buffer.from(payload.map((b, i) => b ^ MASK[i & 3]));
  return Buffer.concat([head, MASK, masked]);
}

type Got = { binary: boolean; data: string };

function reader(max = 1 << 20): { r: ClientFrameReader; got: Got[] } {
  const got: Got[] = [];
  const r = new ClientFrameReader(
    (p, binary) => got.push({ binary, data: p.toString('latin1') }),
    max,
  );
  return { r, got };
}

const text = (s: string) => frame(0x1, Buffer.from(s, 'latin1'));
const HEARTBEAT = '[null,"5","phoenix","heartbeat",{}]';

describe('ClientFrameReader', () => {
  it('reads masked text and binary frames of every length form, at every split', () => {
    const long = 'y'.repeat(300);
    const huge = 'z'.repeat(70_000);
    const stream = Buffer.concat([
      text(HEARTBEAT),
      frame(0x2, Buffer.from([1, 2, 3, 250])),
      text(''),
      text(long),
      text(huge),
    ]);
    const want: Got[] = [
      { binary: false, data: HEARTBEAT },
      { binary: true, data: Buffer.from([1, 2, 3, 250]).toString('latin1') },
      { binary: false, data: '' },
      { binary: false, data: long },
      { binary: false, data: huge },
    ];
    const splits = [...Array.from({ length: 320 }, (_, i) => i), stream.length - 3];
    for (const k of splits) {
      const { r, got } = reader();
      const copy = Buffer.from(stream);
      expect(r.feed(copy.subarray(0, k))).toBeNull();
      expect(r.feed(copy.subarray(k))).toBeNull();
      expect(got).toEqual(want);
    }
  });

  it('reads a frame fed one byte at a time', () => {
    const { r, got } = reader();
    const f = text(HEARTBEAT);
    for (const b of f) expect(r.feed(Buffer.from([b]))).toBeNull();
    expect(got).toEqual([{ binary: false, data: HEARTBEAT }]);
  });

  it('hands back close, ping, pong, fragments, reserved bits, unmasked and oversized frames', () => {
    const after = text('after');
    const cases: [string, Buffer][] = [
      ['close', frame(0x8, Buffer.from([0x03, 0xe8]))],
      ['ping', frame(0x9, Buffer.from('p'))],
      ['pong', frame(0xa, Buffer.from('p'))],
      ['fragment', frame(0x1, Buffer.from('part'), { fin: false })],
      ['continuation', frame(0x0, Buffer.from('part'))],
      ['rsv1', frame(0x1, Buffer.from('x'), { rsv1: true })],
      ['unmasked', frame(0x1, Buffer.from('x'), { unmasked: true })],
      ['oversized', text('x'.repeat(101))],
      ['reserved opcode', frame(0x3, Buffer.from('x'))],
    ];
    for (const [name, f] of cases) {
      const { r, got } = reader(100);
      const rest = r.feed(Buffer.concat([text('before'), f, after]));
      expect(got, name).toEqual([{ binary: false, data: 'before' }]);
      expect(rest, name).not.toBeNull();
      expect(Buffer.compare(rest!, Buffer.concat([f, after])), name).toBe(0);
    }
  });

  it('hands back a frame whose 64-bit length is beyond 2^32 − 1', () => {
    const { r } = reader();
    const head = Buffer.from([0x81, 0xff, 0, 0, 0, 1, 0, 0, 0, 0, ...MASK]);
    expect(r.feed(head)).toEqual(head);
  });
});
