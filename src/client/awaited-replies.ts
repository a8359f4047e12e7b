/**
 * The refs a connection numbers its frames with, and the replies it awaits for them: joins,
 * acked pushes and leaves by ref, the heartbeat's by itself. What a reply means when it comes
 * is client/channel-frames' settleReply.
 */
import type { Pending } from './channel-frames.js';

export class AwaitedReplies {
  /**
   * Replies awaited, by ref; null while none is (an idle joined connection: a Map and its
   * table are ~250 bytes, kept by each of tens of thousands of connections otherwise). The
   * heartbeat's reply is not in it: heartbeatRef says all there is.
   */
  private pending: Map<string, Pending> | null = null;
  private seq = 0;
  /** The ref of the heartbeat whose reply is awaited; null when none is. */
  heartbeatRef: string | null = null;

  /** The ref for the next frame. */
  next(): string {
    return String(++this.seq);
  }

  /** The ref of the last frame numbered (a push's, right after push()). */
  get last(): string {
    return String(this.seq);
  }

  add(ref: string, p: Pending): void {
    (this.pending ??= new Map()).set(ref, p);
  }

  /** The entry of `ref`, no longer awaited; undefined when none. */
  take(ref: string): Pending | undefined {
    const pending = this.pending;
    if (!pending) return undefined;
    const p = pending.get(ref);
    if (p === undefined) return undefined;
    pending.delete(ref);
    if (pending.size === 0) this.pending = null;
    return p;
  }

  /**
   * The joins awaited more than `timeoutMs` at `now`, no longer awaited; null when there are
   * none (the usual case: nothing is allocated).
   */
  takeExpiredJoins(now: number, timeoutMs: number): Pending[] | null {
    if (!this.pending) return null;
    let expired: Pending[] | null = null;
    for (const [ref, p] of this.pending) {
      if (p.kind === 'join' && now - p.sentAtMs > timeoutMs) {
        this.take(ref);
        (expired ??= []).push(p);
      }
    }
    return expired;
  }

  get hasJoin(): boolean {
    if (this.pending) for (const p of this.pending.values()) if (p.kind === 'join') return true;
    return false;
  }

  /** The socket is gone: no reply will come. */
  clear(): void {
    this.pending = null;
    this.heartbeatRef = null;
  }
}
