/**
 * A worker near its open-file limit stops accepting, so the connections it could not hold go to
 * the other workers. Every worker of `rtcap serve --workers N` accepts from one listening socket;
 * the kernel gives a connection to whichever worker calls accept() first, so the spread is not
 * even (a 100,000-connection run on 8 workers put 20,000 on one and ~12,000 on the others). A
 * worker at its limit cannot accept: libuv then accepts on a spare descriptor and closes at once,
 * which the client sees as `connect ECONNRESET` although the other workers had room. Closing
 * the worker's listening handle takes it out of the kernel's choice (its open connections stay);
 * it listens again once it is back under the low-water mark.
 */
import type { Server, Socket } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';

/** Files kept free below the limit: half of the 1 % the step-limit model calls "at the limit". */
export function reserveOf(limit: number): number {
  return Math.max(16, Math.ceil(limit * 0.005));
}

/** The soft open-file limit of this process, or null (not Linux, unlimited). */
export function ownOpenFilesLimit(): number | null {
  try {
    const m = /^Max open files\s+(\d+|unlimited)\s/m.exec(
      readFileSync('/proc/self/limits', 'utf8'),
    );
    return m && m[1] !== 'unlimited' ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** Files this process has open now, or 0 when /proc cannot tell. */
function ownOpenFiles(): number {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return 0;
  }
}

export interface AcceptGateOptions {
  server: Server;
  /** Listens again on the shared socket (the worker's own listen call). */
  listen: () => void;
  /** Asks the primary whether this worker may stop accepting (answered through answer()). */
  ask: () => void;
  /** Tells the primary this worker accepts again. */
  resumed: () => void;
  limit: number;
  /** Files open that are not accepted sockets (taken when the gate starts). */
  baseFiles?: number;
  log: (line: string) => void;
}

/**
 * The high-water mark is the limit less reserveOf(limit), the low-water mark twice that below.
 * The primary says no while this is the only worker accepting; the gate asks again once another
 * reserve's worth of sockets has come in.
 */
export class AcceptGate {
  private sockets = 0;
  private paused = false;
  private asking = false;
  private stopped = false;
  /** Ask again at this many files after a refusal. */
  private nextAskAt: number;
  /** Times this worker stopped accepting. */
  pauses = 0;
  private readonly base: number;
  private readonly reserve: number;
  private readonly high: number;
  private readonly low: number;
  private readonly onClose = (): void => {
    this.sockets--;
    if (this.paused && !this.stopped && this.files() <= this.low) this.resume();
  };

  constructor(private readonly opts: AcceptGateOptions) {
    this.base = opts.baseFiles ?? ownOpenFiles();
    this.reserve = reserveOf(opts.limit);
    this.high = opts.limit - this.reserve;
    this.low = opts.limit - 2 * this.reserve;
    this.nextAskAt = this.high;
    opts.server.on('connection', (socket: Socket) => this.onConnection(socket));
  }

  get accepting(): boolean {
    return !this.paused;
  }

  /** The primary's answer to ask(). */
  answer(ok: boolean): void {
    this.asking = false;
    if (this.stopped || this.paused) return;
    if (ok) this.pause();
    else this.nextAskAt = this.files() + Math.max(1, Math.floor(this.reserve / 4));
  }

  /** Shutting down: never listen again. */
  stop(): void {
    this.stopped = true;
  }

  private files(): number {
    return this.base + this.sockets;
  }

  private onConnection(socket: Socket): void {
    this.sockets++;
    socket.once('close', this.onClose);
    if (this.paused || this.asking || this.stopped) return;
    if (this.files() < Math.max(this.high, this.nextAskAt)) return;
    this.asking = true;
    this.opts.ask();
  }

  private pause(): void {
    this.paused = true;
    this.pauses++;
    // net.Server.close: no new connections on this worker; the open ones are kept.
    this.opts.server.close();
    this.opts.log(
      `at ${this.files()} of ${this.opts.limit} open files: stopped accepting (the other workers take new connections) until under ${this.low}`,
    );
  }

  private resume(): void {
    this.paused = false;
    this.nextAskAt = this.high;
    this.opts.listen();
    this.opts.resumed();
    this.opts.log(`under ${this.low} open files: accepting again`);
  }
}
