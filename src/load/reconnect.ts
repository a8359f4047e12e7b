/**
 * When a connection that failed or was dropped tries again (load.reconnect): exponential
 * backoff with jitter, so a rejection storm is not answered by a synchronised one.
 */
import type { ReconnectPolicy } from '../scenarios/types.js';

/**
 * The wait before reconnect attempt `attempt + 1` (attempt 0 = the first connect):
 * min(max, initial × multiplier^attempt) × (1 − jitter + 2 × jitter × random), random in [0, 1).
 * Null when the policy allows no more attempts.
 */
export function reconnectDelayMs(
  policy: ReconnectPolicy,
  attempt: number,
  random: number,
): number | null {
  if (attempt >= policy.maxAttempts) return null;
  const base = Math.min(
    policy.maxBackoffMs,
    policy.initialBackoffMs * policy.multiplier ** attempt,
  );
  return base * (1 - policy.jitter + 2 * policy.jitter * random);
}
