/**
 * Sends a heartbeat as one pre-built frame (protocol/heartbeat.ts) written straight to the
 * socket under ws. ws's `send` would JSON-encode nothing less than the same text, then frame it
 * as two buffers (header, masked payload) and cork the socket around them: a `writev` per
 * heartbeat. One buffer is one `write`.
 *
 * Why writing beside ws is safe: with permessage-deflate off (socket-open.ts) and no Blob ever
 * sent, ws's Sender writes each frame synchronously with `socket.write` and queues nothing
 * (ws/lib/sender.js `sendFrame`, as the built-in server's wire.ts relies on too), so a frame
 * written here never lands inside one of its own. Only when the socket is open, its sender idle
 * and ws looks as expected; otherwise the caller sends through ws, slower and the same on the
 * wire.
 *
 * The mask key is fresh for every frame (RFC 6455 §5.3), from a pool of random bytes refilled
 * when used up, as ws's own sender does.
 */
import { randomFillSync } from 'node:crypto';
import type { Duplex } from 'node:stream';
import WebSocket from 'ws';
import type { Vsn } from '../protocol/constants.js';
import { heartbeatFrame } from '../protocol/heartbeat.js';

const POOL_BYTES = 8 * 1024;
const KEY_BYTES = 4;
const pool = Buffer.alloc(POOL_BYTES);
let poolAt = POOL_BYTES;

/** The offset in `pool` of 4 random bytes not handed out before. */
function nextKey(): number {
  if (poolAt + KEY_BYTES > POOL_BYTES) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const at = poolAt;
  poolAt += KEY_BYTES;
  return at;
}

/** ws's private parts this relies on (not in @types/ws). */
interface WsInternals {
  _socket?: Duplex;
  _sender?: { _state?: number; _queue?: unknown[] };
}

/** ws's Sender state when it is not deflating or reading a Blob (ws/lib/sender.js DEFAULT). */
const SENDER_IDLE = 0;

/**
 * Writes the heartbeat with `ref` as one frame; false when it did not (not open, ws's sender
 * busy or not as expected, a ref the template does not take) and the caller must send it
 * through ws.
 */
export function writeHeartbeat(ws: WebSocket, ref: string, vsn: Vsn): boolean {
  if (ws.readyState !== WebSocket.OPEN) return false;
  const { _socket: socket, _sender: sender } = ws as unknown as WsInternals;
  if (!socket || !sender || sender._state !== SENDER_IDLE || sender._queue?.length !== 0)
    return false;
  const frame = heartbeatFrame(ref, vsn, pool, nextKey());
  if (frame === null) return false;
  socket.write(frame);
  return true;
}
