/**
 * Keeps the tokens of joined channels from expiring, as realtime-js does when supabase-js
 * renews its session: a channel whose token rtcap minted gets a fresh one by an `access_token`
 * push (docs/PROTOCOL.md §3.4; no reply) when half of its token's lifetime is left. Without it a
 * run longer than the token lifetime would see the server close every channel with "Token has
 * expired" and report that as the server's loss. Tokens from a file or a fixed apikey cannot
 * be renewed: they are never tracked here.
 */

/** When a token of `ttlMs` that expires at `expMs` is renewed: half its lifetime before expiry. */
export function refreshAtMs(expMs: number, ttlMs: number): number {
  return expMs - ttlMs / 2;
}

/** `exp` (ms) of a JWT, read without verifying it; null when it has none or is not a JWT. */
export function jwtExpiryMs(token: string): number | null {
  const payload = token.split('.')[1];
  if (!payload) return null;
  try {
    const exp = (
      JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown }
    ).exp;
    return typeof exp === 'number' ? exp * 1000 : null;
  } catch {
    return null;
  }
}

/**
 * Channels by the time their token is due for renewal. The worker asks every 250 ms; with no
 * channel due (nearly always: renewals come once per half lifetime) the answer is one
 * comparison, not a walk over every channel — that walk allocated ~3 MB/s of garbage in a
 * process holding 12,500 idle channels.
 */
export class TokenRefreshSchedule<C> {
  private readonly dueMs = new Map<C, number>();
  /** No channel is due before this (a lower bound: an untracked channel may have set it). */
  private earliestMs = Infinity;

  constructor(readonly ttlMs: number) {}

  get size(): number {
    return this.dueMs.size;
  }

  /** Tracks `c`, whose token expires at `expMs`. */
  track(c: C, expMs: number): void {
    this.schedule(c, refreshAtMs(expMs, this.ttlMs));
  }

  /** Tracks `c` to be tried again at `atMs` (its source had no newer token yet). */
  retryAt(c: C, atMs: number): void {
    this.schedule(c, atMs);
  }

  private schedule(c: C, atMs: number): void {
    this.dueMs.set(c, atMs);
    if (atMs < this.earliestMs) this.earliestMs = atMs;
  }

  untrack(c: C): void {
    this.dueMs.delete(c);
  }

  /**
   * The channels due at `nowMs` (at most `max`: a burst of renewals is spread over ticks),
   * no longer tracked: each is tracked again with its new token's expiry once it has one.
   */
  takeDue(nowMs: number, max: number): C[] {
    const due: C[] = [];
    if (nowMs < this.earliestMs) return due;
    let earliest = Infinity;
    for (const [c, atMs] of this.dueMs) {
      if (atMs > nowMs) {
        if (atMs < earliest) earliest = atMs;
        continue;
      }
      if (due.length >= max) {
        // Some are left for the next call, still due: it must look again.
        earliest = -Infinity;
        break;
      }
      due.push(c);
      this.dueMs.delete(c);
    }
    this.earliestMs = earliest;
    return due;
  }
}
