/**
 * Pieces every scenario plan shares.
 */
import type { Profile } from '../profile/schema.js';
import type { ReconnectPolicy } from './types.js';

export function reconnectPolicy(profile: Profile): ReconnectPolicy | null {
  const r = profile.load.reconnect;
  if (!r?.enabled) return null;
  return { initialBackoffMs: r.initial_backoff, maxBackoffMs: r.max_backoff, multiplier: r.multiplier, jitter: r.jitter, maxAttempts: r.max_attempts };
}

/** Messages in a steady window of `durationMs` at `ratePerS`. */
export function countAt(ratePerS: number, durationMs: number): number {
  return Math.floor((ratePerS * durationMs) / 1000);
}
