import { parseProfile } from '../../src/profile/load.js';
import type { Profile } from '../../src/profile/schema.js';
import { stringify } from 'yaml';

/** A profile from a plain object, through the real loader (defaults, validation). */
export function profileFrom(obj: Record<string, unknown>): Profile {
  return parseProfile(stringify(obj), { path: 'test-profile.yaml' }).profile;
}
