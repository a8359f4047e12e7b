/**
 * The decoders' refusals, beside the golden frames of frame.test.ts: what is not JSON, not an
 * object, or a binary frame's metadata that is neither, each a FrameError saying which.
 */
import { describe, expect, it } from 'vitest';
import { ENCODING, KIND } from '../../src/protocol/constants.js';
import { decodeBinary, decodeV1 } from '../../src/protocol/frame-decode.js';
import { FrameError } from '../../src/protocol/frame-types.js';

const utf8 = (s: string) => new TextEncoder().encode(s);

/** A kind 4 frame of topic "t", event "e" and this metadata text. */
function withMetadata(meta: string): Uint8Array {
  const m = utf8(meta);
  return Uint8Array.from([
    KIND.userBroadcast,
    1,
    1,
    m.length,
    ENCODING.binary,
    ...utf8('te'),
    ...m,
  ]);
}

describe('the decoders', () => {
  it('refuse a v1 frame that is not JSON, or not a JSON object', () => {
    expect(() => decodeV1('{')).toThrow(new FrameError('not JSON'));
    for (const text of ['null', '[1,2,3,4,5]', '"x"'])
      expect(() => decodeV1(text)).toThrow(new FrameError('v1 frame is not a JSON object'));
  });

  it("read a binary frame's metadata as an object, none when it is empty", () => {
    const f = decodeBinary(withMetadata('{"k":2}'), 'server');
    expect(f).toMatchObject({ kind: 4, topic: 't', userEvent: 'e', metadata: { k: 2 } });
    expect(decodeBinary(withMetadata(''), 'server')).toMatchObject({ metadata: null });
  });

  it('refuse metadata that is not JSON, or not an object', () => {
    expect(() => decodeBinary(withMetadata('{'), 'server')).toThrow(
      new FrameError('binary frame metadata is not JSON'),
    );
    expect(() => decodeBinary(withMetadata('[]'), 'server')).toThrow(
      new FrameError('binary frame metadata is not an object'),
    );
  });
});
