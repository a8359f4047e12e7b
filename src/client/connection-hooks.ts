/**
 * What a Connection (client/connection.ts) tells its owner: deliveries, joins, acks, errors,
 * closes and the frames it does not handle itself. Generic in the connection's type so this
 * file need not import connection.ts (which re-exports it as `ConnectionHooks`).
 */
import type { Frame } from '../protocol/frame-types.js';
import type { Stamp } from '../protocol/stamp.js';
import type { ClassifiedError } from './classify.js';

export interface ConnectionHooksOf<C> {
  /** A delivery carrying a stamp. `bytes` is the frame size. */
  onStamp(c: C, stamp: Stamp, recvMs: number, bytes: number): void;
  onOpen(c: C): void;
  onJoined(c: C, topic: string, response: unknown, latencyMs: number): void;
  /** Connect, join and channel failures, unexpected closes, frames it could not read. */
  onError(
    c: C,
    e: ClassifiedError,
    phase: 'connect' | 'join' | 'channel' | 'socket' | 'heartbeat' | 'frame',
  ): void;
  /** The socket is gone (after onError when it was not our doing). */
  onClosed(c: C, byUs: boolean): void;
  /** Reply to a push sent with `ack`; `tag` and `ackId` are what the push was sent with. */
  onAck(
    c: C,
    ok: boolean,
    reason: string | null,
    latencyMs: number,
    tag?: string,
    ackId?: number,
  ): void;
  /**
   * Frames the connection does not handle itself (system ok, presence, postgres_changes, foreign
   * events).
   */
  onFrame(c: C, f: Frame): void;
}
