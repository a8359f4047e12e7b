/**
 * Phoenix frames in their three encodings (docs/PROTOCOL.md §2.1–§2.3): the one entry point
 * for text or binary data of either vsn, in both directions. The types are in frame-types, the
 * encoders in frame-encode, the decoders in frame-decode: import each from the file defining it.
 */
import { VSN_1, type Vsn } from './constants.js';
import { binaryToFrame, decodeBinary, decodeV1, decodeV2 } from './frame-decode.js';
import { encodeV1, encodeV2 } from './frame-encode.js';
import { FrameError, type Frame } from './frame-types.js';

const textDecoder = new TextDecoder('utf-8', { fatal: false });
const textEncoder = new TextEncoder();

/** One entry point for text or binary data of either vsn. */
export function decodeFrame(
  data: string | Uint8Array,
  isBinary: boolean,
  vsn: Vsn,
  from: 'client' | 'server',
): Frame {
  if (isBinary) {
    if (vsn === VSN_1) throw new FrameError('binary frame on a vsn 1.0.0 socket');
    return binaryToFrame(
      decodeBinary(typeof data === 'string' ? textEncoder.encode(data) : data, from),
    );
  }
  const text = typeof data === 'string' ? data : textDecoder.decode(data);
  return vsn === VSN_1 ? decodeV1(text) : decodeV2(text);
}

export function encodeFrame(frame: Frame, vsn: Vsn, from: 'client' | 'server'): string {
  return vsn === VSN_1 ? encodeV1(frame, from) : encodeV2(frame);
}
