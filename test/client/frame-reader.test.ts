/**
 * FrameReader: the server frames it reads itself (unmasked, unfragmented text and binary,
 * pings, pongs), at every split of the byte stream, and the frames it hands back to ws with
 * every byte from there on.
 */
import { describe, expect, it } from 'vitest';
import { FrameReader } from '../../src/client/frame-reader.js';

/** A server frame (no mask): FIN + opcode, the length in 7, 16 or 64 bits. */
function frame(
  opcode: number,
  payload: Buffer,
  opts: { fin?: boolean; rsv1?: boolean; masked?: boolean } = {},
): Buffer {
  const b0 = (opts.fin === false ? 0 : 0x80) | (opts.rsv1 ? 0x40 : 0) | opcode;
  const mask = opts.masked ? 0x80 : 0;
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
  return Buffer.concat([head, opts.masked ? Buffer.alloc(4) : Buffer.alloc(0), payload]);
}

type Got = { kind: 'text' | 'binary' | 'ping'; data: string };

function reader(max = 1 << 20): { r: FrameReader; got: Got[] } {
  const got: Got[] = [];
  const r = new FrameReader(
    {
      message: (p, isBinary) =>
        got.push({ kind: isBinary ? 'binary' : 'text', data: p.toString('latin1') }),
      ping: (p) => got.push({ kind: 'ping', data: p.toString('latin1') }),
    },
    max,
  );
  return { r, got };
}

const text = (s: string) => frame(0x1, Buffer.from(s, 'latin1'));
const mid = 'm'.repeat(300); // 16-bit length
const big = 'b'.repeat(70_000); // 64-bit length

describe('FrameReader', () => {
  const stream = Buffer.concat([
    text('hello'),
    frame(0x2, Buffer.from([1, 2, 3])),
    frame(0x9, Buffer.from('pp')),
    frame(0xa, Buffer.from('qq')),
    text(mid),
    text(big),
    text(''),
  ]);
  const expected: Got[] = [
    { kind: 'text', data: 'hello' },
    { kind: 'binary', data: '\x01\x02\x03' },
    { kind: 'ping', data: 'pp' },
    { kind: 'text', data: mid },
    { kind: 'text', data: big },
    { kind: 'text', data: '' },
  ];

  it('reads every frame of one chunk in order, with 7-, 16- and 64-bit lengths; a pong is dropped', () => {
    const { r, got } = reader();
    expect(r.feed(stream)).toBeNull();
    expect(got).toEqual(expected);
  });

  it('gives the same messages whatever the split of the byte stream into chunks', () => {
    // Every split into two chunks near the frame boundaries, and byte by byte through the small
    // frames.
    const cuts = [
      ...Array.from({ length: 420 }, (_, i) => i),
      stream.length - 3,
      stream.length - 1,
    ];
    for (const cut of cuts) {
      const { r, got } = reader();
      expect(r.feed(stream.subarray(0, cut))).toBeNull();
      expect(r.feed(stream.subarray(cut))).toBeNull();
      expect(got).toEqual(expected);
    }
    const { r, got } = reader();
    for (let i = 0; i < stream.length; i += 7)
      expect(r.feed(stream.subarray(i, Math.min(stream.length, i + 7)))).toBeNull();
    expect(got).toEqual(expected);
  });

  it('hands back a close frame and every byte after it, having delivered the frames before', () => {
    const close = frame(0x8, Buffer.from([0x03, 0xe8]));
    const after = text('after');
    const { r, got } = reader();
    const rest = r.feed(Buffer.concat([text('a'), close, after]));
    expect(got).toEqual([{ kind: 'text', data: 'a' }]);
    expect(rest).toEqual(Buffer.concat([close, after]));
  });

  it('a close frame split over chunks is handed back whole, buffered bytes included', () => {
    const close = frame(0x8, Buffer.from([0x03, 0xe8, 0x41]));
    const { r, got } = reader();
    expect(r.feed(Buffer.concat([text('a'), close.subarray(0, 1)]))).toBeNull();
    expect(r.feed(close.subarray(1))).toEqual(close);
    expect(got).toEqual([{ kind: 'text', data: 'a' }]);
  });

  it.each([
    ['a fragment (FIN clear)', frame(0x1, Buffer.from('part'), { fin: false })],
    ['a continuation frame', frame(0x0, Buffer.from('part'))],
    ['reserved bits (a compressed frame)', frame(0x1, Buffer.from('z'), { rsv1: true })],
    ['a masked frame (a server must not mask)', frame(0x1, Buffer.from('m'), { masked: true })],
    ['a reserved opcode', frame(0x3, Buffer.from('r'))],
  ])('hands back %s', (_name, f) => {
    const { r, got } = reader();
    expect(r.feed(Buffer.concat([text('x'), f]))).toEqual(f);
    expect(got).toEqual([{ kind: 'text', data: 'x' }]);
  });

  it('hands back a frame above the largest payload, so ws refuses it as it would', () => {
    const f = text('y'.repeat(200));
    const { r, got } = reader(100);
    expect(r.feed(f)).toEqual(f);
    expect(got).toEqual([]);
  });
});
