/**
 * How a run ends early: every cause (interrupt, dead server, failed generator, timeout,
 * refusing target) rejects one promise, and every wait of the run races it, so the run stops
 * at once wherever it is waiting.
 */
import type { RunStatus } from '../result/result.js';

export class Abort extends Error {
  constructor(
    readonly status: RunStatus,
    message: string,
  ) {
    super(message);
  }
}

export class AbortFunnel {
  private rejectAbort!: (e: Abort) => void;
  readonly aborted: Promise<never>;

  constructor() {
    this.aborted = new Promise<never>((_, reject) => (this.rejectAbort = reject));
    this.aborted.catch(() => undefined);
  }

  abort(status: RunStatus, why: string): void {
    this.rejectAbort(new Abort(status, why));
  }

  /** `p`, unless the run is aborted first. */
  race<T>(p: Promise<T>): Promise<T> {
    return Promise.race([p, this.aborted]);
  }

  /** Unref'd: an interrupted run must not wait for the rest of a steady window to exit. */
  sleep(ms: number): Promise<void> {
    return this.race(new Promise<void>((r) => setTimeout(r, Math.max(0, ms)).unref()));
  }
}

/** Rejects with an abort after `ms` (unref'd). */
export function timeoutAfter(ms: number, what: string): Promise<never> {
  return new Promise((_, reject) =>
    setTimeout(() => reject(new Abort('aborted', what)), ms).unref(),
  );
}

/** `p`'s value, or null after `ms`: for asking parts that may no longer answer. */
export function withinOrNull<T>(p: Promise<T>, ms: number): Promise<T | null> {
  return raceTimer(p, ms, null);
}

/**
 * `p`'s value, or `fallback` after `ms`. The timer is cleared when `p` wins: a pending timer
 * would keep the process alive for the rest of `ms` after everything else is done.
 */
export async function raceTimer<T, F>(p: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<F>((r) => (timer = setTimeout(() => r(fallback), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
