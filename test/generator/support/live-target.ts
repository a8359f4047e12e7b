/**
 * A generator process's parts run in the test's own process against a test server on loopback
 * (test/support/phoenix-test-server): real connections, sets and ledgers, no process spawned.
 * What a test needs to build them: a profile, the coordinator's init message, a bounded wait.
 */
import type { TokenConfig } from '../../../src/client/auth.js';
import { buildSocketUrl } from '../../../src/client/url.js';
import type { ToWorker } from '../../../src/generator/ipc.js';
import type { Profile } from '../../../src/profile/schema.js';
import { profileFrom } from '../../support/profiles.js';

/** No key: the test server asks for none, and no token is minted or renewed. */
export const NO_TOKENS: TokenConfig = { role: 'anon', ttlMs: 3_600_000, apikeyIn: 'query' };

/** A broadcast-public profile against `url` (connection 0 sends, the others receive). */
export function liveProfile(url: string, steps: Array<Record<string, unknown>>): Profile {
  return profileFrom({
    name: 'generator-live-test',
    scenario: 'broadcast-public',
    target: { url, vsn: '1.0.0', join_timeout: 5_000 },
    load: { join_rate: 200, steps },
  });
}

/** The socket URL rtcap dials for `profile` (its vsn in the query). */
export function socketUrlOf(profile: Profile): string {
  return buildSocketUrl(profile.target.url!, { vsn: profile.target.vsn });
}

/** The coordinator's init message to process 0 of 1. */
export function initOf(profile: Profile): Extract<ToWorker, { type: 'init' }> {
  return {
    type: 'init',
    workerIndex: 0,
    workers: 1,
    profile,
    url: socketUrlOf(profile),
    headers: {},
    sourceAddresses: [],
    tokens: NO_TOKENS,
  };
}

/** Resolves once `cond()` holds; fails naming `what` after `timeoutMs`. */
export async function until(what: string, cond: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Waits `ms` of real time. */
export const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
