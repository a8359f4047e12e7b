/**
 * Keeps the tokens of joined channels from expiring, as realtime-js does when supabase-js
 * renews its session: a channel whose token rtcap minted gets a fresh one by an `access_token`
 * push (PROTOCOL §3.4; no reply) when half of its token's lifetime is left. Without it a run
 * longer than the token lifetime would see the server close every channel with "Token has
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
    const exp = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown }).exp;
    return typeof exp === 'number' ? exp * 1000 : null;
  } catch {
    return null;
  }
}

/** Channels by the time their token is due for renewal. */
export class TokenRefreshSchedule<C> {
  private readonly dueMs = new Map<C, number>();

  constructor(readonly ttlMs: number) {}

  get size(): number {
    return this.dueMs.size;
  }

  /** Tracks `c`, whose token expires at `expMs`. */
  track(c: C, expMs: number): void {
    this.dueMs.set(c, refreshAtMs(expMs, this.ttlMs));
  }

  /** Tracks `c` to be tried again at `atMs` (its source had no newer token yet). */
  retryAt(c: C, atMs: number): void {
    this.dueMs.set(c, atMs);
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
    for (const [c, atMs] of this.dueMs) {
      if (due.length >= max) break;
      if (atMs > nowMs) continue;
      due.push(c);
      this.dueMs.delete(c);
    }
    return due;
  }
}
