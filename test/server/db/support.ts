/** Shared helpers of the Postgres-backed db suites (not a test file itself). */
import type { AuthContext } from '../../../src/server/db/index.js';

export function ctx(
  role: string,
  subtopic: string,
  claims: Record<string, unknown> = {},
): AuthContext {
  return {
    role,
    subtopic,
    claims: { role, exp: Math.floor(Date.now() / 1000) + 3600, ...claims },
    headers: { host: 'realtime-dev.localhost' },
  };
}

/** Polls `probe` every `everyMs` until it returns a value, at most `withinMs`. */
export async function eventually<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  withinMs = 5_000,
  everyMs = 25,
): Promise<T> {
  const deadline = Date.now() + withinMs;
  let last: unknown;
  for (let i = 0; i < 10_000; i++) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(
    `condition not met within ${withinMs} ms${last ? `: ${(last as Error).message}` : ''}`,
  );
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
