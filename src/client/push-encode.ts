/**
 * A push as the bytes a client sends: a JSON frame of either vsn, or, for a broadcast on a v2
 * socket, the binary kind-3 user broadcast current realtime-js sends (docs/PROTOCOL.md §2.3).
 */
import { ENCODING, VSN_1, type Vsn } from '../protocol/constants.js';
import { encodeFrame } from '../protocol/frame.js';
import { encodeUserBroadcastPush } from '../protocol/frame-encode.js';

/** A broadcast's user event and inner payload, sent as a v2 user broadcast. */
export interface BinaryUserEvent {
  userEvent: string;
  inner: unknown;
}

/** Positional, not one object: it runs for every push sent. */
export function encodePush(
  vsn: Vsn,
  joinRef: string | null,
  ref: string,
  topic: string,
  event: string,
  payload: unknown,
  binaryUserEvent: BinaryUserEvent | undefined,
): string | Uint8Array {
  if (binaryUserEvent && vsn !== VSN_1)
    return encodeUserBroadcastPush({
      joinRef,
      ref,
      topic,
      userEvent: binaryUserEvent.userEvent,
      payload: binaryUserEvent.inner,
      encoding: ENCODING.json,
    });
  return encodeFrame({ joinRef, ref, topic, event, payload }, vsn, 'client');
}
