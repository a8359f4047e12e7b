/**
 * The acks a generator process waits for (load.ack): every acked send is pending from the
 * moment it is written until the server answers it, refuses it, or `load.ack_timeout` passes
 * (counted unacked). A send counts as taken by the server only once acknowledged.
 *
 * The state is bounded: past `cap` pending acks a send is not tracked and is counted as
 * such (`untracked`), never dropped from the figures without a trace.
 */

/** Pending acks per generator process; at ~100 bytes each, about 25 MB when full. */
export const MAX_PENDING_ACKS = 250_000;

export interface AckCounts {
  /** Answered ok within the timeout. */
  ok: number;
  /** Answered with an error (the server refused the send). */
  errors: number;
  /** No answer within load.ack_timeout, or none by the end of the step. */
  unacked: number;
  /** Sent while the pending-ack state was full: the answer could not be matched. */
  untracked: number;
}

export function newAckCounts(): AckCounts {
  return { ok: 0, errors: 0, unacked: 0, untracked: 0 };
}

interface Pending<C> {
  conn: C;
  ref: string;
  schedMs: number;
  sentMs: number;
}

export class AckTracker<C> {
  private readonly pending = new Map<number, Pending<C>>();
  private nextId = 1;
  private counts = newAckCounts();
  /** Acks (ok) counted by ack time in the current second. */
  private okThisSecond = 0;

  constructor(
    private readonly timeoutMs: number,
    /** Stops the connection waiting for the reply to `ref` (it no longer matters). */
    private readonly forget: (conn: C, ref: string) => void,
    private readonly cap = MAX_PENDING_ACKS,
  ) {}

  /** Counts from now on go to `counts` (a step's); what is still pending stays pending. */
  countInto(counts: AckCounts): void {
    this.counts = counts;
  }

  get size(): number {
    return this.pending.size;
  }

  /**
   * Opens a pending ack for a send scheduled at schedMs; 0 when the state is full (counted
   * untracked).
   */
  open(conn: C, schedMs: number, sentMs: number): number {
    if (this.pending.size >= this.cap) {
      this.counts.untracked++;
      return 0;
    }
    const id = this.nextId++;
    this.pending.set(id, { conn, ref: '', schedMs, sentMs });
    return id;
  }

  /** The connection's ref of the push that carries ack `id`. */
  bind(id: number, ref: string): void {
    const p = this.pending.get(id);
    if (p) p.ref = ref;
  }

  /** The send was never written: nothing to wait for. */
  cancel(id: number): void {
    this.pending.delete(id);
  }

  /**
   * The server answered ack `id` at nowMs. Returns the ack latency from the scheduled send
   * time, or null when the ack is not pending (timed out already, or not ours).
   */
  settle(id: number, ok: boolean, nowMs: number): number | null {
    const p = this.pending.get(id);
    if (!p) return null;
    this.pending.delete(id);
    if (ok) {
      this.counts.ok++;
      this.okThisSecond++;
    } else {
      this.counts.errors++;
    }
    return nowMs - p.schedMs;
  }

  /** Counts acks pending longer than the timeout as unacked. Returns how many timed out. */
  expire(nowMs: number): number {
    let n = 0;
    // Insertion order is send order, so the oldest are first.
    for (const [id, p] of this.pending) {
      if (nowMs - p.sentMs <= this.timeoutMs) break;
      this.pending.delete(id);
      this.forget(p.conn, p.ref);
      n++;
    }
    this.counts.unacked += n;
    return n;
  }

  /** The step is over: whatever is still pending was not acknowledged in it. */
  endStep(): void {
    for (const p of this.pending.values()) this.forget(p.conn, p.ref);
    this.counts.unacked += this.pending.size;
    this.pending.clear();
  }

  /** Acks counted ok since the last call (the per-second line). */
  takeSecond(): number {
    const n = this.okThisSecond;
    this.okThisSecond = 0;
    return n;
  }
}
