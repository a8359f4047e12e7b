/**
 * One direction of one relayed connection: what `from` sends is held on a DelaySchedule and
 * written to `to` when due, in order, its end (FIN) too. Backpressure crosses the relay: when
 * `to` is slow to drain, or more than HIGH_WATER_BYTES wait in the line, `from` is no longer
 * read, so a slow reader behind the link fills the sender's buffers as it would on a real link.
 */
import type { Socket } from 'node:net';
import type { DelaySchedule } from './delay-schedule.js';

/** Bytes held in one direction before the relay stops reading the sender. */
export const HIGH_WATER_BYTES = 4 * 1024 * 1024;

interface Held {
  atMs: number;
  /** null: the sender's end of stream. */
  chunk: Buffer | null;
}

export class DelayedPipe {
  private readonly line: Held[] = [];
  private head = 0;
  private heldBytes = 0;
  private timer: NodeJS.Timeout | null = null;
  private blocked = false;
  private paused = false;
  /** The latest a chunk went out after it was due (ms), for the relay's own health. */
  lateMaxMs = 0;

  constructor(
    private readonly from: Socket,
    private readonly to: Socket,
    private readonly schedule: DelaySchedule,
    private readonly now: () => number = Date.now,
  ) {
    from.on('data', (chunk: Buffer) => this.hold(chunk));
    from.on('end', () => this.hold(null));
    to.on('drain', () => {
      this.blocked = false;
      this.updateFlow();
    });
  }

  private hold(chunk: Buffer | null): void {
    this.line.push({ atMs: this.schedule.releaseAt(this.now()), chunk });
    if (chunk) this.heldBytes += chunk.length;
    this.updateFlow();
    this.arm();
  }

  private arm(): void {
    if (this.timer || this.head >= this.line.length) return;
    const waitMs = Math.max(0, this.line[this.head].atMs - this.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      this.release();
    }, waitMs);
  }

  /** Writes every chunk that is due, in order; re-arms for the next. */
  private release(): void {
    const now = this.now();
    while (this.head < this.line.length && this.line[this.head].atMs <= now) {
      const { atMs, chunk } = this.line[this.head++];
      this.lateMaxMs = Math.max(this.lateMaxMs, now - atMs);
      if (this.to.destroyed) continue;
      if (chunk === null) {
        this.to.end();
        continue;
      }
      this.heldBytes -= chunk.length;
      if (!this.to.write(chunk)) this.blocked = true;
    }
    if (this.head > 1024 && this.head * 2 > this.line.length) {
      this.line.splice(0, this.head);
      this.head = 0;
    }
    this.updateFlow();
    this.arm();
  }

  private updateFlow(): void {
    const stop = this.blocked || this.heldBytes > HIGH_WATER_BYTES;
    if (stop && !this.paused) this.from.pause();
    else if (!stop && this.paused) this.from.resume();
    this.paused = stop;
  }

  /** Drops what is held (the connection is gone). */
  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.line.length = 0;
    this.head = 0;
    this.heldBytes = 0;
  }
}
