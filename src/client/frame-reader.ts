/**
 * rtcap's reader of the frames a server sends: protocol/ws-frame-reader's reader set for a
 * client's end. Server frames arrive unmasked (a masked one goes back to ws, which refuses it);
 * besides unfragmented text and binary frames it reads pings, which the sink answers, and pongs,
 * which it drops. client/fast-reader puts it on an open socket in place of ws's Receiver.
 */
import { WsFrameReader, type FrameSink } from '../protocol/ws-frame-reader.js';

export class FrameReader extends WsFrameReader {
  constructor(sink: Required<FrameSink>, maxPayloadBytes: number) {
    super(sink, false, maxPayloadBytes);
  }
}
