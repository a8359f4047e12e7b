/**
 * Puts client/frame-reader's FrameReader in place of ws's Receiver on an open socket (the same
 * messages for a fraction of the CPU; see frame-reader.ts). ws attaches its `socketOnData`
 * listener just before it emits 'open'; nothing has been read yet, so taking it off then loses
 * no byte. At the first frame the reader does not handle (close, fragments, protocol errors)
 * the listener goes back, with those bytes, and ws runs the rest of the connection as usual.
 * If this ws version does not look as expected, ws keeps reading: slower, never wrong.
 */
import type { Duplex } from 'node:stream';
import WebSocket from 'ws';
import { FrameReader } from './frame-reader.js';

const noop = () => {};

/** Installs the reader on `ws` (call it from ws's 'open'); false when ws keeps reading. */
export function readFramesOurselves(
  ws: WebSocket,
  onMessage: (data: Buffer, isBinary: boolean) => void,
  maxPayloadBytes: number,
): boolean {
  const socket = (ws as unknown as { _socket?: Duplex })._socket;
  if (!socket) return false;
  const wsOnData = socket.listeners('data').find((f) => f.name === 'socketOnData') as
    ((chunk: Buffer) => void) | undefined;
  if (!wsOnData || socket.listenerCount('data') !== 1) return false;
  const reader = new FrameReader(
    {
      message: onMessage,
      // As ws's autoPong does: a ping is answered with its payload.
      ping: (payload) => {
        if (ws.readyState === WebSocket.OPEN) ws.pong(payload, true, noop);
      },
    },
    maxPayloadBytes,
  );
  const onData = (chunk: Buffer) => {
    const rest = reader.feed(chunk);
    if (rest === null) return;
    socket.removeListener('data', onData);
    socket.on('data', wsOnData);
    wsOnData.call(socket, rest);
  };
  socket.removeListener('data', wsOnData);
  socket.on('data', onData);
  return true;
}
