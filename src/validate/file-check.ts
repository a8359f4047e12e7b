/**
 * What `rtcap validate` checks in each kind of file rtcap reads, without running anything:
 * a profile as `rtcap run` loads it (and its thresholds), a campaign with every entry's profile
 * as `rtcap campaign` loads them (a sweep entry's `sweep:` section too), a workload as
 * `rtcap plan` reads it. A `${VAR}` that is not set here is named, not refused: the file is
 * checked as if that field were absent (CI and pods set their variables elsewhere).
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { z } from 'zod';
import { parseThreshold, thresholdSpec, ThresholdError } from '../model/thresholds.js';
import { workloadSchema } from '../plan/workload.js';
import { campaignSchema } from '../profile/campaign.js';
import { inputJsonSchema } from '../profile/json-schema.js';
import { loadProfile, type LoadedProfile } from '../profile/load.js';
import { ProfileError } from '../profile/errors.js';
import { profileSchema } from '../profile/schema.js';
import { loadYamlFile } from '../profile/yaml-file.js';
import { entrySweep } from '../campaign/search.js';
import { hostRefusals } from './host-facts.js';
import { planCampaign } from '../campaign/state.js';
import { sweepConfig, SweepError } from '../sweep/sweep.js';

export const FILE_KINDS = ['profile', 'campaign', 'workload'] as const;
export type FileKind = (typeof FILE_KINDS)[number];

const SCHEMAS: Record<FileKind, { schema: z.ZodType; title: string; description: string }> = {
  profile: {
    schema: profileSchema,
    title: 'rtcap profile',
    description: 'A benchmark profile for rtcap; field reference: docs/PROFILE.md.',
  },
  campaign: {
    schema: campaignSchema,
    title: 'rtcap campaign',
    description:
      'Profiles and sweeps run in order into one directory (rtcap campaign); README "The whole capacity table".',
  },
  workload: {
    schema: workloadSchema,
    title: 'rtcap workload',
    description: "A workload's peak demands for rtcap plan; rules in docs/CAPACITY.md.",
  },
};

/** The JSON Schema of one kind of file (`rtcap schema --kind`). */
export function fileJsonSchema(kind: FileKind): Record<string, unknown> {
  const { schema, title, description } = SCHEMAS[kind];
  return inputJsonSchema(schema, title, description);
}

/** Keys only a workload has at its top level (profiles have scenario/load, campaigns entries). */
const WORKLOAD_KEYS = [
  'connections',
  'public',
  'private',
  'presence',
  'reconnect',
  'message_bytes',
];

/** The kind of a file by what it holds; a profile when it cannot tell (its errors then say why). */
export function kindOfFile(path: string): FileKind {
  let data: unknown;
  try {
    data = parse(readFileSync(path, 'utf8'));
  } catch {
    return 'profile';
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) return 'profile';
  const keys = Object.keys(data);
  if (keys.includes('entries')) return 'campaign';
  if (keys.includes('scenario') || keys.includes('load')) return 'profile';
  return keys.some((k) => WORKLOAD_KEYS.includes(k)) ? 'workload' : 'profile';
}

export interface FileCheck {
  kind: FileKind;
  /** One line each, empty when the file is good. */
  problems: string[];
  /** `${VAR}`s not set here, each with the field it is in: "${RTCAP_URL} (target.url)". */
  unset: string[];
  /**
   * What `rtcap run` would refuse on this host (validate/host-facts), one line each: warnings, not
   * problems — the file is good, this machine lacks netem or the room.
   */
  hostRefusals: string[];
}

/** Threshold expressions of a loaded profile that do not parse, one line each. */
export function thresholdProblems(loaded: LoadedProfile, source: string): string[] {
  return loaded.profile.thresholds.flatMap((t, i) => {
    try {
      parseThreshold(thresholdSpec(t).expression);
      return [];
    } catch (err) {
      if (err instanceof ThresholdError) return [`${source}: thresholds.${i}: ${err.message}`];
      throw err;
    }
  });
}

/**
 * A profile as run loads it; with `sweep`, as sweep does. `prepare` changes the loaded profile
 * first, as a campaign does with an entry's `search:` over the profile's `sweep:` section.
 */
async function checkProfile(
  what: {
    path: string;
    sets: readonly string[];
    sweep: boolean;
    prepare?: (profile: LoadedProfile['profile']) => void;
  },
  out: FileCheck,
): Promise<void> {
  const { path, sets, sweep, prepare } = what;
  let loaded: LoadedProfile;
  try {
    loaded = await loadProfile(path, { sets, allowUnsetEnv: true });
    prepare?.(loaded.profile);
  } catch (e) {
    if (!(e instanceof ProfileError)) throw e;
    out.problems.push(...e.message.split('\n').filter((l) => l.trim()));
    return;
  }
  out.problems.push(...thresholdProblems(loaded, path));
  out.unset.push(...loaded.unsetEnv.map((u) => `\${${u.name}} (${u.field})`));
  // Only a profile whose fields are all known here is measured against this host.
  if (out.problems.length === 0 && loaded.unsetEnv.length === 0)
    out.hostRefusals.push(...hostRefusals(loaded.profile));
  if (!sweep) return;
  try {
    sweepConfig(loaded.profile);
  } catch (e) {
    if (!(e instanceof SweepError)) throw e;
    out.problems.push(`${path}: ${e.message}`);
  }
}

/** Checks one file of `kind` (found from its content when not given). */
export async function checkFile(
  path: string,
  opts: { kind?: FileKind; sets?: readonly string[] } = {},
): Promise<FileCheck> {
  const kind = opts.kind ?? kindOfFile(path);
  const out: FileCheck = { kind, problems: [], unset: [], hostRefusals: [] };
  if (kind === 'profile') {
    await checkProfile({ path, sets: opts.sets ?? [], sweep: false }, out);
    return out;
  }
  try {
    if (kind === 'workload') {
      loadYamlFile(path, workloadSchema);
      return out;
    }
    const campaign = loadYamlFile(path, campaignSchema);
    const state = planCampaign(campaign, path, new Date());
    for (const [i, e] of state.entries.entries()) {
      // Each entry's problems say which entry: one profile may be loaded by several.
      const entry: FileCheck = {
        kind: 'profile',
        problems: [],
        unset: out.unset,
        hostRefusals: [],
      };
      const spec = campaign.entries[i];
      const sets = [...campaign.set, ...spec.set, ...(opts.sets ?? [])];
      const search = spec.search
        ? (p: LoadedProfile['profile']) => void (p.sweep = entrySweep(p.sweep, spec, i, path))
        : undefined;
      await checkProfile({ path: e.profile, sets, sweep: e.sweep, prepare: search }, entry);
      out.problems.push(...entry.problems.map((p) => `${path}: entries.${i}: ${p}`));
      out.hostRefusals.push(...entry.hostRefusals.map((r) => `entries.${i}: ${r}`));
    }
  } catch (e) {
    if (!(e instanceof ProfileError)) throw e;
    out.problems.push(...e.message.split('\n').filter((l) => l.trim()));
  }
  return out;
}
