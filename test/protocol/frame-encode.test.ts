/**
 * The encoders' own rules, beside the golden frames of frame.test.ts: a user broadcast's
 * metadata (none, or an empty object, is no bytes), the payload's encoding, and the 255-byte
 * limit of every length-prefixed field.
 */
import { describe, expect, it } from 'vitest';
import { ENCODING, KIND } from '../../src/protocol/constants.js';
import { encodeUserBroadcast, encodeUserBroadcastPush } from '../../src/protocol/frame-encode.js';
import { FrameError } from '../../src/protocol/frame-types.js';

const utf8 = (s: string) => new TextEncoder().encode(s);

describe('the binary encoders', () => {
  it('write no metadata bytes for none or an empty object, and JSON for any other', () => {
    const b = { topic: 't', userEvent: 'e', payload: utf8('x'), encoding: ENCODING.binary };
    const none = encodeUserBroadcast(b);
    expect(Array.from(none)).toEqual([KIND.userBroadcast, 1, 1, 0, 0, ...utf8('tex')]);
    expect(encodeUserBroadcast({ ...b, metadata: {} })).toEqual(none);
    const meta = encodeUserBroadcast({ ...b, metadata: { a: 1 } });
    expect(meta[3]).toBe('{"a":1}'.length);
    expect(new TextDecoder().decode(meta.subarray(7, 14))).toBe('{"a":1}');
  });

  it('encode a payload given as a value as JSON, whatever encoding was asked', () => {
    const f = encodeUserBroadcastPush({
      joinRef: null,
      ref: null,
      topic: 't',
      userEvent: 'e',
      payload: { n: 1 },
      encoding: ENCODING.binary,
    });
    // kind, join_ref, ref, topic, event and metadata lengths, then the encoding.
    expect(Array.from(f.subarray(0, 7))).toEqual([KIND.userBroadcastPush, 0, 0, 1, 1, 0, 1]);
    expect(new TextDecoder().decode(f.subarray(9))).toBe('{"n":1}');
  });

  it('refuse a field longer than its one length byte can say, naming it', () => {
    const long = 'x'.repeat(256);
    const b = { topic: long, userEvent: 'e', payload: utf8('') };
    expect(() => encodeUserBroadcast(b)).toThrow(FrameError);
    expect(() => encodeUserBroadcast(b)).toThrow('topic is longer than 255 bytes');
    expect(() => encodeUserBroadcast({ ...b, topic: 'x'.repeat(255) })).not.toThrow();
  });
});
