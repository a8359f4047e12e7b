/**
 * A fixed-size pool of Postgres connections, the shape of Supabase's DBConnection pools
 * (docs/PROTOCOL.md §6.3): `size` connections opened up front, callers queue FIFO for a
 * checkout, and a checkout that waits longer than the queue target fails with
 * PoolTimeoutError (DBConnection's `queue_timeout`) — the event the authorization and
 * subscription error counters count (docs/PROTOCOL.md §6.4).
 *
 * Simplification: DBConnection's queue_target/queue_interval pair (drop queued checkouts
 * only once the queue has been slow for a whole interval) is reduced to a plain per-checkout
 * deadline of `queueTargetMs`.
 */
import pg from 'pg';
import { PoolTimeoutError } from './errors.js';

export interface PoolOptions {
  connectionString: string;
  size: number;
  /** Shows in pg_stat_activity, as Supabase names its pools (`realtime_connect`, ...). */
  applicationName: string;
  /** Client-side limit on any one query; the connection is discarded when it fires. */
  queryTimeoutMs?: number;
  log?: (line: string) => void;
}

interface Waiter {
  resolve: (c: pg.Client) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
  sinceMs: number;
}

export class ConnectionPool {
  private readonly idle: pg.Client[] = [];
  private readonly live = new Set<pg.Client>();
  private readonly broken = new WeakSet<pg.Client>();
  private readonly waiters: Waiter[] = [];
  /** Slots whose connection was discarded and is not yet replaced. */
  private missing = 0;
  private connecting = 0;
  private stopped = false;

  constructor(private readonly opts: PoolOptions) {}

  async start(): Promise<void> {
    const opened = await Promise.allSettled(
      Array.from({ length: this.opts.size }, () => this.open()),
    );
    const failed = opened.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) {
      await this.stop();
      throw failed.reason;
    }
    for (const r of opened) if (r.status === 'fulfilled') this.idle.push(r.value);
  }

  get size(): number {
    return this.opts.size;
  }

  /** Callers queued for a checkout. */
  get waiting(): number {
    return this.waiters.length;
  }

  get idleCount(): number {
    return this.idle.length;
  }

  acquire(timeoutMs: number): Promise<pg.Client> {
    if (this.stopped) return Promise.reject(new Error('pool stopped'));
    const c = this.idle.pop();
    if (c) return Promise.resolve(c);
    this.refill();
    return new Promise<pg.Client>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        sinceMs: performance.now(),
        timer: setTimeout(() => {
          const i = this.waiters.indexOf(waiter);
          if (i >= 0) this.waiters.splice(i, 1);
          reject(new PoolTimeoutError(Math.round(performance.now() - waiter.sinceMs)));
        }, timeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  /** Returns a connection; `discard` when its state is unknown (timeout, connection error). */
  release(c: pg.Client, discard = false): void {
    if (discard || this.broken.has(c) || this.stopped) {
      this.drop(c);
      return;
    }
    this.handOver(c);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const w of this.waiters.splice(0)) {
      clearTimeout(w.timer);
      w.reject(new Error('pool stopped'));
    }
    this.idle.length = 0;
    await Promise.all([...this.live].map((c) => c.end().catch(() => undefined)));
    this.live.clear();
  }

  private handOver(c: pg.Client): void {
    const w = this.waiters.shift();
    if (w) {
      clearTimeout(w.timer);
      w.resolve(c);
    } else {
      this.idle.push(c);
    }
  }

  private drop(c: pg.Client): void {
    if (!this.live.delete(c)) return;
    const i = this.idle.indexOf(c);
    if (i >= 0) this.idle.splice(i, 1);
    c.end().catch(() => undefined);
    if (!this.stopped) {
      this.missing++;
      this.refill();
    }
  }

  /** Reopens discarded slots while someone waits; one attempt per slot per waiting caller. */
  private refill(): void {
    while (!this.stopped && this.missing > this.connecting) {
      this.connecting++;
      this.open()
        .then((c) => {
          this.missing--;
          if (this.stopped) {
            this.live.delete(c);
            c.end().catch(() => undefined);
          } else {
            this.handOver(c);
          }
        })
        .catch((e: Error) => {
          this.opts.log?.(`${this.opts.applicationName}: reconnect failed: ${e.message}`);
        })
        .finally(() => {
          this.connecting--;
        });
    }
  }

  private async open(): Promise<pg.Client> {
    const c = new pg.Client({
      connectionString: this.opts.connectionString,
      application_name: this.opts.applicationName,
      query_timeout: this.opts.queryTimeoutMs,
    });
    c.on('error', (e) => {
      // An idle connection that dies must not crash the process; it is replaced on next use.
      this.broken.add(c);
      this.opts.log?.(`${this.opts.applicationName}: connection error: ${e.message}`);
      if (this.idle.includes(c)) this.drop(c);
    });
    await c.connect();
    this.live.add(c);
    return c;
  }
}
