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

/**
 * How long a connection may take to use up its reconnect attempts: every backoff at its
 * longest (jitter up) plus each attempt's connect and join timeouts. A step whose connections
 * were all lost is given that long to get one back before the run ends.
 */
export function reconnectGiveUpMs(policy: ReconnectPolicy, attemptTimeoutMs: number): number {
  let ms = 0;
  for (let a = 0; a < policy.maxAttempts; a++) {
    const base = Math.min(policy.maxBackoffMs, policy.initialBackoffMs * policy.multiplier ** a);
    ms += base * (1 + policy.jitter) + 2 * attemptTimeoutMs;
  }
  return ms;
}
