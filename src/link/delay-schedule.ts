/**
 * When a relayed chunk may go on: the time it arrived plus the link's one-way delay, plus a
 * jitter drawn uniformly from −jitter … +jitter (netem's default distribution), but never
 * before the chunk ahead of it in the same direction of the same connection. TCP delivers a
 * stream in order, so jitter on a real link delays what follows a late packet instead of
 * reordering it; a chunk that would overtake the one ahead waits for it.
 *
 * `notBeforeMs` holds chunks that arrive earlier than it as if they arrived then: the relay
 * accepts a connection at once on the local machine, where a real link takes one round trip
 * (2 × delay) before the client can send, so the client's first bytes are held that long.
 */
export class DelaySchedule {
  private lastReleaseMs = -Infinity;

  constructor(
    private readonly delayMs: number,
    private readonly jitterMs: number,
    private readonly notBeforeMs = -Infinity,
    /** Uniform on [0, 1); a fake in unit tests. */
    private readonly random: () => number = Math.random,
  ) {}

  /** The release time of a chunk that arrived at `arrivalMs`. */
  releaseAt(arrivalMs: number): number {
    const jitter = this.jitterMs > 0 ? (this.random() * 2 - 1) * this.jitterMs : 0;
    const due = Math.max(arrivalMs, this.notBeforeMs) + this.delayMs + jitter;
    this.lastReleaseMs = Math.max(due, this.lastReleaseMs);
    return this.lastReleaseMs;
  }
}
