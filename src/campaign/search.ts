/**
 * A campaign entry's `search:`: its fields over the profile's `sweep:` section, checked as a
 * sweep section is (a driver, and a max for a search; start at or below max). A problem is a
 * ProfileError at the campaign file's line of the field, like every other campaign error.
 */
import { readFileSync } from 'node:fs';
import type { CampaignEntry } from '../profile/campaign.js';
import { ProfileError } from '../profile/errors.js';
import { locate } from '../profile/locate.js';
import { sweepSchema } from '../profile/schema/sweep.js';
import type { Sweep } from '../profile/schema.js';
import { parseYamlDocument } from '../profile/yaml-file.js';

/** A sweep section's defaults (driver and max are placeholders, never kept). */
const DEFAULTS = sweepSchema.parse({ driver: 'connections', max: 1 });

/** The line of `entries.<i>.search.<field>` (or the nearest ancestor) in the campaign file. */
function lineOf(
  campaignPath: string,
  path: Array<string | number>,
): { line: number | null; col: number | null } {
  try {
    const { doc, lineCounter } = parseYamlDocument(
      readFileSync(campaignPath, 'utf8'),
      campaignPath,
    );
    const pos = locate(doc, lineCounter, path, 'value');
    return { line: pos?.line ?? null, col: pos?.col ?? null };
  } catch {
    return { line: null, col: null };
  }
}

/**
 * The sweep section an entry searches with: the profile's, with the entry's fields over it.
 * An entry's search is always a search: explicit `values` of the profile are dropped unless
 * the entry gives its own. Throws ProfileError naming the field and its campaign line.
 */
export function entrySweep(
  profileSweep: Sweep | undefined,
  entry: CampaignEntry,
  index: number,
  campaignPath: string,
): Sweep {
  const own = Object.fromEntries(
    Object.entries(entry.search ?? {}).filter(([, v]) => v !== undefined),
  ) as Partial<Sweep>;
  const base: Partial<Sweep> = profileSweep
    ? { ...profileSweep }
    : { ...DEFAULTS, driver: undefined, max: undefined };
  if (!('values' in own)) delete base.values;
  const merged = { ...base, ...own } as Partial<Sweep>;
  const fail = (field: string, message: string): never => {
    const path = ['entries', index, 'search', field];
    const at = lineOf(
      campaignPath,
      entry.search && field in entry.search ? path : path.slice(0, 3),
    );
    throw new ProfileError([
      { source: campaignPath, ...at, field: path.join('.'), message, setIndex: null },
    ]);
  };
  if (merged.driver === undefined)
    fail('driver', 'required: the profile has no sweep: section to take it from');
  if (!merged.values && merged.max === undefined)
    fail('max', "required for a search (the profile's sweep: section has none)");
  if (merged.start !== undefined && merged.max !== undefined && merged.start > merged.max)
    fail('start', `start ${merged.start} is above max ${merged.max}`);
  return merged as Sweep;
}
