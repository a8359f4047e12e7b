import { parseProfile } from '../../src/profile/load.js';
import type { Profile } from '../../src/profile/schema.js';
import { stringify } from 'yaml';

/**
 * Generator limits for tests whose subject is not the generator's own health. Test steps
 * last a second or two on a shared 2-core machine running other suites beside them; over so
 * short a window the event-loop lag p99 is in effect its maximum, and one scheduling hiccup
 * would turn any verdict into `generator-bound`. A test about that verdict sets its own.
 */
export const TEST_GENERATOR_LIMITS = {
  max_event_loop_lag_p99_ms: 2000,
  max_cpu_pct: 100,
  min_offered_ratio: 0.9,
};

/** A profile from a plain object, through the real loader (defaults, validation). */
export function profileFrom(obj: Record<string, unknown>): Profile {
  const withLimits = 'generator' in obj ? obj : { ...obj, generator: TEST_GENERATOR_LIMITS };
  return parseProfile(stringify(withLimits), { path: 'test-profile.yaml' }).profile;
}
