/**
 * WsFrameReader, the one frame reader of both ends, set for either masking: what it reads itself
 * (whatever the split of the byte stream, headers included, with 7-, 16- and 64-bit lengths),
 * what it hands back to ws, and that ws's own Receiver, given those bytes, reads the rest of the
 * connection whole (a message fragmented around a ping, a payload too large refused).
 */
import { createRequire } from 'node:module';
import type { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { WsFrameReader } from '../../src/protocol/ws-frame-reader.js';

// ws's Receiver, the class a WebSocket reads its frames with (not in @types/ws).
const Receiver = (createRequire(import.meta.url)('ws') as { Receiver: unknown })
  .Receiver as new (o: { isServer: boolean; maxPayload?: number }) => Writable;

const KEY = Buffer.from([0x37, 0xfa, 0x21, 0x3d]);

/** A frame as a client (masked with KEY) or a server (unmasked) sends it. */
function frame(
  opcode: number,
  payload: Buffer,
  masked: boolean,
  opts: { fin?: boolean; rsv1?: boolean } = {},
): Buffer {
  const b0 = (opts.fin === false ? 0 : 0x80) | (opts.rsv1 ? 0x40 : 0) | opcode;
  const m = masked ? 0x80 : 0;
  let head: Buffer;
  if (payload.length < 126) head = Buffer.from([b0, m | payload.length]);
  else if (payload.length < 65536) {
    head = Buffer.from([b0, m | 126, 0, 0]);
    head.writeUInt16BE(payload.length, 2);
  } else {
    head = Buffer.from([b0, m | 127, 0, 0, 0, 0, 0, 0, 0, 0]);
    head.writeBigUInt64BE(BigInt(payload.length), 2);
  }
  if (!masked) return Buffer.concat([head, payload]);
  return Buffer.concat([head, KEY, Buffer.from(payload.map((b, i) => b ^ KEY[i & 3]))]);
}

type Got = { kind: 'text' | 'binary' | 'ping'; data: string };

/** A reader and what reached its sink; `pings` false: a sink without a ping handler. */
function reader(masked: boolean, max = 1 << 20, pings = true) {
  const got: Got[] = [];
  const message = (p: Buffer, bin: boolean) =>
    got.push({ kind: bin ? 'binary' : 'text', data: p.toString('latin1') });
  const ping = (p: Buffer) => got.push({ kind: 'ping', data: p.toString('latin1') });
  const r = new WsFrameReader(pings ? { message, ping } : { message }, masked, max);
  return { r, got };
}

/**
 * What ws's Receiver reads from `bytes` (a reader's hand-back): its messages and pings, and its
 * error if it refuses them; once it has read `events` of them, or after a second.
 */
function wsReads(bytes: Buffer, masked: boolean, events: number, maxPayload?: number) {
  return new Promise<string[]>((resolve) => {
    const seen: string[] = [];
    const add = (s: string) => {
      seen.push(s);
      if (seen.length === events) resolve(seen);
    };
    const r = new Receiver({ isServer: masked, maxPayload });
    r.on('message', (d: Buffer, bin: boolean) => add(`${bin ? 'binary' : 'text'}:${d}`));
    r.on('ping', (d: Buffer) => add(`ping:${d}`));
    r.on('error', (e: Error) => add(`error:${e.message}`));
    setTimeout(() => resolve(seen), 1000);
    r.write(Buffer.from(bytes));
  });
}

const text = (s: string, masked: boolean) => frame(0x1, Buffer.from(s, 'latin1'), masked);
const SIDES = [
  ['masked (a server reading client frames)', true],
  ['unmasked (a client reading server frames)', false],
] as const;

describe.each(SIDES)('WsFrameReader, %s', (_side, masked) => {
  const short = 'x'.repeat(125); // the longest 7-bit length
  const mid = 'm'.repeat(126); // the shortest 16-bit length
  const top16 = 't'.repeat(65_535);
  const big = 'b'.repeat(65_536); // the shortest 64-bit length
  const stream = Buffer.concat([
    text('hello', masked),
    frame(0x2, Buffer.from([1, 2, 250]), masked),
    text(short, masked),
    text(mid, masked),
    text(top16, masked),
    text(big, masked),
    text('', masked),
  ]);
  const expected: Got[] = [
    { kind: 'text', data: 'hello' },
    { kind: 'binary', data: '\x01\x02\xfa' },
    ...[short, mid, top16, big, ''].map((data) => ({ kind: 'text' as const, data })),
  ];

  it('reads 7-, 16- and 64-bit lengths at their bounds, in one chunk', () => {
    const { r, got } = reader(masked);
    expect(r.feed(Buffer.from(stream))).toBeNull();
    expect(got).toEqual(expected);
  });

  it('reads the same whatever the split, headers cut anywhere across chunks', () => {
    const bigAt = stream.length - text('', masked).length - text(big, masked).length;
    const midAt = text('hello', masked).length + 5 + (masked ? 4 : 0) + text(short, masked).length;
    // Every cut through the first frames, and every byte of the 16- and 64-bit headers.
    const cuts = [
      ...Array.from({ length: 160 }, (_, i) => i),
      ...Array.from({ length: 16 }, (_, i) => midAt + i),
      ...Array.from({ length: 16 }, (_, i) => bigAt + i),
    ];
    for (const cut of cuts) {
      const { r, got } = reader(masked);
      const copy = Buffer.from(stream);
      expect(r.feed(copy.subarray(0, cut)), `cut ${cut}`).toBeNull();
      expect(r.feed(copy.subarray(cut)), `cut ${cut}`).toBeNull();
      expect(got, `cut ${cut}`).toEqual(expected);
    }
  });

  it('reads a 64-bit-length frame fed a byte at a time through its header, then in pieces', () => {
    const f = text(big, masked);
    const { r, got } = reader(masked);
    for (let i = 0; i < 14; i++) expect(r.feed(f.subarray(i, i + 1))).toBeNull();
    for (let i = 14; i < f.length; i += 1000) expect(r.feed(f.subarray(i, i + 1000))).toBeNull();
    expect(got).toEqual([{ kind: 'text', data: big }]);
  });

  it('hands back a frame of the other masking with every byte after it', () => {
    const other = text('other', !masked);
    const after = text('after', masked);
    const { r, got } = reader(masked);
    expect(r.feed(Buffer.concat([text('a', masked), other, after]))).toEqual(
      Buffer.concat([other, after]),
    );
    expect(got).toEqual([{ kind: 'text', data: 'a' }]);
  });

  it('answers pings and drops pongs between messages, in order, when the sink takes pings', () => {
    const { r, got } = reader(masked);
    const bytes = Buffer.concat([
      text('a', masked),
      frame(0x9, Buffer.from('p1'), masked),
      frame(0xa, Buffer.from('q'), masked),
      text('b', masked),
    ]);
    expect(r.feed(bytes)).toBeNull();
    expect(got).toEqual([
      { kind: 'text', data: 'a' },
      { kind: 'ping', data: 'p1' },
      { kind: 'text', data: 'b' },
    ]);
  });

  it('hands back pings and pongs when the sink takes none', () => {
    for (const opcode of [0x9, 0xa]) {
      const control = frame(opcode, Buffer.from('p'), masked);
      const { r, got } = reader(masked, 1 << 20, false);
      expect(r.feed(Buffer.concat([text('a', masked), control]))).toEqual(control);
      expect(got).toEqual([{ kind: 'text', data: 'a' }]);
    }
  });

  it('a ping between the fragments of a message goes back to ws with them; ws reads both', async () => {
    const first = frame(0x1, Buffer.from('frag-'), masked, { fin: false });
    const ping = frame(0x9, Buffer.from('mid'), masked);
    const last = frame(0x0, Buffer.from('end'), masked);
    const after = text('after', masked);
    const rest = Buffer.concat([first, ping, last, after]);
    const before = text('before', masked);
    for (const cut of [1, 2, first.length + 1, first.length + ping.length + 1]) {
      const { r, got } = reader(masked);
      const bytes = Buffer.concat([before, rest]);
      const at = before.length + cut;
      // Its first header byte says "fragment": from there on, every byte is ws's.
      const early = r.feed(bytes.subarray(0, at));
      expect(early === null, `cut ${cut}`).toBe(cut < 2);
      const back = early ? Buffer.concat([early, bytes.subarray(at)]) : r.feed(bytes.subarray(at));
      expect(got, `cut ${cut}`).toEqual([{ kind: 'text', data: 'before' }]);
      expect(back, `cut ${cut}`).toEqual(rest);
    }
    expect(await wsReads(rest, masked, 3)).toEqual(['ping:mid', 'text:frag-end', 'text:after']);
  });

  it('hands back close, continuation, reserved bits and reserved opcodes', () => {
    const cases: [string, Buffer][] = [
      ['close', frame(0x8, Buffer.from([0x03, 0xe8]), masked)],
      ['fragment', frame(0x2, Buffer.from('part'), masked, { fin: false })],
      ['continuation', frame(0x0, Buffer.from('part'), masked)],
      ['rsv1', frame(0x1, Buffer.from('z'), masked, { rsv1: true })],
      ['reserved opcode', frame(0x3, Buffer.from('r'), masked)],
    ];
    for (const [name, f] of cases) {
      const { r, got } = reader(masked);
      expect(r.feed(Buffer.concat([text('x', masked), f])), name).toEqual(f);
      expect(got, name).toEqual([{ kind: 'text', data: 'x' }]);
    }
  });

  it('refuses a payload above the largest: handed back once its header is in, and ws refuses it', async () => {
    const f = text('y'.repeat(200), masked);
    const head = masked ? 8 : 4;
    const { r, got } = reader(masked, 100);
    expect(r.feed(Buffer.concat([text('ok', masked), f.subarray(0, head - 1)]))).toBeNull();
    expect(r.feed(f.subarray(head - 1, head))).toEqual(f.subarray(0, head));
    expect(got).toEqual([{ kind: 'text', data: 'ok' }]);
    const ws = await wsReads(f, masked, 1, 100);
    expect(ws).toHaveLength(1);
    expect(ws[0]).toMatch(/^error:Max payload size exceeded/);
  });

  it('refuses a 64-bit length beyond 2^32 − 1 and a ping above 125 bytes', async () => {
    const huge = Buffer.from([0x82, (masked ? 0x80 : 0) | 127, 0, 0, 0, 1, 0, 0, 0, 0]);
    const hugeFrame = masked ? Buffer.concat([huge, KEY]) : huge;
    expect(reader(masked).r.feed(hugeFrame)).toEqual(hugeFrame);
    const longPing = frame(0x9, Buffer.alloc(126, 0x70), masked);
    const { r, got } = reader(masked);
    expect(r.feed(longPing)).toEqual(longPing);
    expect(got).toEqual([]);
    const ws = await wsReads(longPing, masked, 1);
    expect(ws).toHaveLength(1);
    expect(ws[0]).toMatch(/^error:/);
  });
});
