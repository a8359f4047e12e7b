/**
 * A profile whose emulated client link (generator.link) cannot be emulated on this machine is
 * refused before anything starts: one line naming the field and why, exit 2 (a profile error).
 */
import { linkRefusal } from '../link/link-setup.js';
import type { Profile } from '../profile/schema.js';
import { EXIT } from '../util/exit-codes.js';

/** True after printing why the link is refused (exit code 2 set). */
export function refuseLink(profile: Profile): boolean {
  const why = linkRefusal(profile.generator.link);
  if (!why) return false;
  process.stderr.write(`${why}\n`);
  process.exitCode = EXIT.usage;
  return true;
}
