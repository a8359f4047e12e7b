import { describe, expect, it } from 'vitest';
import {
  closeFrame,
  frameBinary,
  frameText,
  Outgoing,
  pushFrame,
  replyFrame,
} from '../../src/server/wire.js';

const payload = (f: Buffer) => {
  const len = f[1] & 0x7f;
  const off = len === 126 ? 4 : len === 127 ? 10 : 2;
  return f.subarray(off);
};

describe('pre-framed WebSocket frames', () => {
  it('uses the 7-bit, 16-bit and 64-bit length forms', () => {
    expect([...frameText('hi')]).toEqual([0x81, 2, 104, 105]);
    const mid = frameText('x'.repeat(300));
    expect([mid[0], mid[1], mid.readUInt16BE(2), mid.length]).toEqual([0x81, 126, 300, 304]);
    const big = frameBinary(new Uint8Array(70_000));
    expect([big[0], big[1], big.readUInt32BE(2), big.readUInt32BE(6), big.length]).toEqual([
      0x82, 127, 0, 70_000, 70_010,
    ]);
  });

  it('counts UTF-8 bytes, not characters', () => {
    const f = frameText('é');
    expect(f[1]).toBe(2);
    expect(payload(f).toString()).toBe('é');
  });
});

describe('server frames (golden, §2.1–§2.2)', () => {
  it('replies, pushes and closes in both serializers', () => {
    expect(
      payload(
        replyFrame({ v2: true, joinRef: '1', topic: 'realtime:a' }, '2', 'ok', {}),
      ).toString(),
    ).toBe('["1","2","realtime:a","phx_reply",{"status":"ok","response":{}}]');
    expect(
      payload(
        replyFrame(
          { v2: false, joinRef: '1', topic: 'realtime:a' },
          '2',
          'error',
          'payload_size_exceeded',
        ),
      ).toString(),
    ).toBe(
      '{"topic":"realtime:a","event":"phx_reply","payload":{"status":"error","response":"payload_size_exceeded"},"ref":"2"}',
    );
    expect(
      payload(
        pushFrame({ v2: true, joinRef: '1', topic: 'realtime:a' }, 'presence_state', {}),
      ).toString(),
    ).toBe('["1",null,"realtime:a","presence_state",{}]');
    expect(payload(closeFrame(true, '4', 'realtime:a')).toString()).toBe(
      '["4","4","realtime:a","phx_close",{}]',
    );
    expect(payload(closeFrame(false, '4', 'realtime:a')).toString()).toBe(
      '{"topic":"realtime:a","event":"phx_close","payload":{},"ref":"4"}',
    );
  });

  it('encodes a fan-out once per serializer and reuses the bytes', () => {
    const o = new Outgoing('realtime:a', 'broadcast', { json: '{"event":"e","payload":{}}' });
    const v2 = o.frame(true);
    expect(o.frame(true)).toBe(v2);
    expect(payload(v2!).toString()).toBe(
      '[null,null,"realtime:a","broadcast",{"event":"e","payload":{}}]',
    );
    expect(payload(o.frame(false)!).toString()).toBe(
      '{"topic":"realtime:a","event":"broadcast","payload":{"event":"e","payload":{}},"ref":null}',
    );
  });

  it('drops what a serializer cannot carry (§2.3)', () => {
    const bin = new Outgoing('realtime:a', 'broadcast', {
      user: { event: 'e', encoding: 0, bytes: new Uint8Array([1]) },
    });
    expect(bin.frame(false)).toBeNull();
    expect(bin.frame(true)![0]).toBe(0x82);
    const badJson = new Outgoing('realtime:a', 'broadcast', {
      user: { event: 'e', encoding: 1, bytes: Buffer.from('{nope') },
    });
    expect(badJson.frame(false)).toBeNull();
    const meta = new Outgoing('realtime:a', 'broadcast', {
      user: { event: 'e', encoding: 1, bytes: Buffer.from('{"a":1}') },
      meta: { id: 'x' },
    });
    expect(payload(meta.frame(false)!).toString()).toBe(
      '{"topic":"realtime:a","event":"broadcast","payload":{"type":"broadcast","event":"e","payload":{"a":1},"meta":{"id":"x"}},"ref":null}',
    );
    expect(
      new Outgoing('realtime:a', 'broadcast', { binary: new Uint8Array([7]) }).frame(false),
    ).toBeNull();
  });
});
