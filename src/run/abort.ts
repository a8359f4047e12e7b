/**
 * How a run ends early: every cause (interrupt, dead server, failed generator, timeout,
 * refusing target) rejects one promise, and every wait of the run races it, so the run stops
 * at once wherever it is waiting.
 */
import type { RunStatus } from '../result/result.js';

export class Abort extends Error {
  /**
   * What cut the run short, as a step cut short by it records it (StepResult.cut_short.by): the
   * signal of an interrupt ("SIGINT"), else the reason itself.
   */
  readonly by: string;

  constructor(
    readonly status: RunStatus,
    message: string,
    by?: string,
  ) {
    super(message);
    this.by = by ?? message;
  }
}

/** The signal a run's AbortSignal was aborted with ("SIGINT", "SIGTERM"; cli/interrupt) or null. */
export function signalOf(signal: AbortSignal | undefined): string | null {
  const r: unknown = signal?.reason;
  return typeof r === 'string' && /^SIG[A-Z]+$/.test(r) ? r : null;
}

/**
 * The abort of a run stopped by a signal, naming it when it is known: SIGINT is the user's
 * Ctrl-C; SIGTERM is sent by whatever stops the process (a supervisor, `kill`, a timeout), not
 * necessarily a user.
 */
export function interruptAbort(signal: AbortSignal | undefined): Abort {
  const sig = signalOf(signal);
  const why =
    sig === null
      ? 'interrupted by the user (SIGINT/SIGTERM)'
      : sig === 'SIGINT'
        ? 'interrupted by the user (SIGINT)'
        : `terminated by ${sig}`;
  return new Abort('interrupted', why, sig ?? 'an interrupt');
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

  /** Ends the run with this abort (an interrupt's, which names its signal). */
  abortWith(e: Abort): void {
    this.rejectAbort(e);
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
