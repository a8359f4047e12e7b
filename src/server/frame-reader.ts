/**
 * The built-in server's reader of the frames a client sends: protocol/ws-frame-reader's reader
 * set for a server's end. Client frames arrive masked (an unmasked one goes back to ws, which
 * refuses it) and are unmasked in place; it reads unfragmented text and binary frames only, so
 * a ping, pong or close goes back to ws with the rest of the connection, and ws answers it as it
 * always does. For an idle connection's heartbeat (one 40-byte frame a chunk) ws's Receiver was
 * a large part of the server's JavaScript per heartbeat (docs/PERFORMANCE.md, "Built-in server:
 * CPU per heartbeat"). connection.ts puts it on each upgraded socket.
 */
import { WsFrameReader } from '../protocol/ws-frame-reader.js';

export type MessageSink = (payload: Buffer, isBinary: boolean) => void;

export class ClientFrameReader extends WsFrameReader {
  constructor(message: MessageSink, maxPayloadBytes: number) {
    super({ message }, true, maxPayloadBytes);
  }
}
