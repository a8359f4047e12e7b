/**
 * The heartbeat as bytes: a pre-framed heartbeat is, once read by ws's own Receiver and by the
 * built-in server's frame reader, exactly the text the general path (encodeFrame) sends, in
 * both serialisations; the reply recogniser accepts exactly the ok reply to that ref, in the
 * forms rtcap's server and Phoenix write, and nothing else.
 */
import { createRequire } from 'node:module';
import type { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { EV, VSN_1, VSN_2, type Vsn } from '../../src/protocol/constants.js';
import { encodeFrame } from '../../src/protocol/frame.js';
import { heartbeatFrame, isHeartbeatOk } from '../../src/protocol/heartbeat.js';
import { FrameReader } from '../../src/client/frame-reader.js';
import { ClientFrameReader } from '../../src/server/frame-reader.js';
import { heartbeatReply } from '../../src/server/heartbeat.js';
import { replyFrame } from '../../src/server/wire.js';

// ws's Receiver, the class its WebSocketServer reads client frames with (not in @types/ws).
const Receiver = (createRequire(import.meta.url)('ws') as { Receiver: unknown })
  .Receiver as new (o: { isServer: boolean }) => Writable;

const VSNS: Vsn[] = [VSN_1, VSN_2];
const general = (ref: string, vsn: Vsn) =>
  encodeFrame(
    { joinRef: null, ref, topic: 'phoenix', event: EV.heartbeat, payload: {} },
    vsn,
    'client',
  );

/** What ws's server-side Receiver reads from `bytes`: its messages, or its error. */
function wsReads(bytes: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = new Receiver({ isServer: true });
    r.on('message', (data: Buffer, isBinary: boolean) =>
      resolve(`${isBinary ? 'binary' : 'text'}:${data.toString()}`),
    );
    r.on('error', reject);
    r.write(Buffer.from(bytes));
  });
}

function serverReaderReads(bytes: Buffer): string[] {
  const got: string[] = [];
  const reader = new ClientFrameReader(
    (p, bin) => got.push(`${bin ? 'binary' : 'text'}:${p}`),
    1e6,
  );
  expect(reader.feed(Buffer.from(bytes))).toBeNull();
  return got;
}

describe('heartbeatFrame', () => {
  const key = Buffer.from([0x00, 0x3c, 0xa5, 0xff, 0x12, 0x34, 0x56, 0x78]);

  it.each(VSNS)('vsn %s: ws and the server read the general path text', async (vsn) => {
    for (const ref of ['1', '42', '1234567890123', 'a-b_c.d~!#$%&()*+,/:;<=>?@[]^`{|}']) {
      for (const keyOffset of [0, 4]) {
        const frame = heartbeatFrame(ref, vsn, key, keyOffset)!;
        expect(frame, ref).not.toBeNull();
        // FIN + text, masked, a 7-bit length, the key as given.
        expect(frame[0]).toBe(0x81);
        expect(frame[1] & 0x80).toBe(0x80);
        expect(frame[1] & 0x7f).toBe(frame.length - 6);
        expect([...frame.subarray(2, 6)]).toEqual([...key.subarray(keyOffset, keyOffset + 4)]);
        expect(await wsReads(frame)).toBe(`text:${general(ref, vsn)}`);
        expect(serverReaderReads(frame)).toEqual([`text:${general(ref, vsn)}`]);
      }
    }
    expect(general('7', vsn)).toBe(
      vsn === VSN_1
        ? '{"topic":"phoenix","event":"heartbeat","payload":{},"ref":"7","join_ref":null}'
        : '[null,"7","phoenix","heartbeat",{}]',
    );
  });

  it('the payload is masked: other keys give other bytes, the same text', async () => {
    const a = heartbeatFrame('9', VSN_2, key, 0)!;
    const b = heartbeatFrame('9', VSN_2, key, 4)!;
    expect(a.subarray(6).equals(b.subarray(6))).toBe(false);
    expect(a.subarray(6).toString()).not.toContain('heartbeat');
    expect(await wsReads(a)).toBe(await wsReads(b));
  });

  it('refuses a ref JSON would escape or one too long for a short frame', () => {
    for (const ref of ['a"b', 'a\\b', 'é', '\n', 'x'.repeat(100)])
      expect(heartbeatFrame(ref, VSN_2, key, 0), ref).toBeNull();
  });
});

const ok = (ref: string, vsn: Vsn) =>
  replyFrame({ v2: vsn === VSN_2, joinRef: null, topic: 'phoenix' }, ref, 'ok', {}).subarray(2);

describe('isHeartbeatOk', () => {
  it.each(VSNS)('vsn %s: the ok reply of rtcap’s server and of Phoenix', (vsn) => {
    expect(isHeartbeatOk(ok('5', vsn), '5', vsn)).toBe(true);
    expect(isHeartbeatOk(ok('123456', vsn), '123456', vsn)).toBe(true);
    const phoenix =
      vsn === VSN_2
        ? '[null,"5","phoenix","phx_reply",{"response":{},"status":"ok"}]'
        : '{"event":"phx_reply","payload":{"response":{},"status":"ok"},"ref":"5","topic":"phoenix"}';
    expect(isHeartbeatOk(Buffer.from(phoenix), '5', vsn)).toBe(true);
  });

  it('accepts the bytes the server’s own heartbeat answer writes', () => {
    const reply = heartbeatReply(Buffer.from(general('77', VSN_2)))!;
    expect(isHeartbeatOk(reply.subarray(2), '77', VSN_2)).toBe(true);
  });

  it.each(VSNS)('vsn %s: rejects every other reply and frame', (vsn) => {
    const v2 = vsn === VSN_2;
    const phoenix = { v2, joinRef: null, topic: 'phoenix' };
    const others = [
      replyFrame(phoenix, '5', 'error', {}), // error status
      replyFrame(phoenix, '5', 'ok', { a: 1 }), // a response
      replyFrame({ ...phoenix, topic: 'realtime:room' }, '5', 'ok', {}), // another topic
      replyFrame(phoenix, '6', 'ok', {}), // another ref
      replyFrame(phoenix, '55', 'ok', {}), // a ref starting with it
      replyFrame(phoenix, null, 'ok', {}), // no ref
      replyFrame({ ...phoenix, v2: !v2 }, '5', 'ok', {}), // the other serialisation
    ].map((f) => f.subarray(2));
    // v1 server frames carry no join_ref (docs/PROTOCOL.md §2.1): only v2's can differ by one.
    if (v2) others.push(replyFrame({ ...phoenix, joinRef: '5' }, '5', 'ok', {}).subarray(2));
    const text = ok('5', vsn).toString();
    others.push(
      Buffer.from(text.replace('phx_reply', 'phx_close')),
      Buffer.from(text.replace('"5"', '5')), // a number, not a string
      Buffer.from(` ${text}`),
      Buffer.from(text.slice(0, -1)),
      Buffer.from(text.slice(0, 20)), // a fragment's payload
      Buffer.alloc(0),
    );
    for (const data of others) expect(isHeartbeatOk(data, '5', vsn), data.toString()).toBe(false);
    expect(isHeartbeatOk(ok('5', vsn), '', vsn)).toBe(false);
    expect(isHeartbeatOk(ok('5', vsn), '"', vsn)).toBe(false);
  });

  it('a fragmented reply never reaches it: the client frame reader hands fragments to ws', () => {
    const text = ok('5', VSN_2);
    const first = Buffer.concat([Buffer.from([0x01, 10]), text.subarray(0, 10)]); // no FIN
    const rest = Buffer.concat([Buffer.from([0x80, text.length - 10]), text.subarray(10)]);
    const seen: Buffer[] = [];
    const reader = new FrameReader({ message: (p) => seen.push(p), ping: () => undefined }, 1e6);
    const back = reader.feed(Buffer.concat([first, rest]));
    expect(seen).toEqual([]);
    expect(back?.length).toBe(first.length + rest.length);
  });
});
