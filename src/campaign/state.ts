/**
 * campaign.json (`rtcap.campaign/v1`): what a campaign directory holds and how far it got,
 * rewritten atomically after every entry so a campaign stopped by Ctrl-C or killed outright
 * resumes from it (`rtcap campaign --resume DIR`). Pure except read/write.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Campaign } from '../profile/campaign.js';

export const CAMPAIGN_STATE_SCHEMA = 'rtcap.campaign/v1';

/** running: started and not finished (a crash leaves it so: resumed as interrupted). */
/** skipped: the campaign's budget was spent before the entry started. */
export type EntryStatus =
  'pending' | 'running' | 'completed' | 'aborted' | 'interrupted' | 'skipped';

export interface EntryState {
  /** From 1, the order of the campaign file. */
  index: number;
  name: string;
  /** The profile's absolute path. */
  profile: string;
  sweep: boolean;
  /** The entry's run directory, relative to the campaign directory. */
  dir: string;
  status: EntryStatus;
  exit_code: number | null;
  /** Wall time of every attempt together. */
  wall_s: number;
  attempts: number;
  /**
   * A search's time budget as given to its last attempt (the entry's, within the campaign's), s.
   */
  budget_s?: number | null;
  /** Why a skipped entry did not run. */
  skip_reason?: string;
}

export interface CampaignState {
  schema: typeof CAMPAIGN_STATE_SCHEMA;
  name: string;
  campaign_path: string;
  started_at: string;
  finished_at: string | null;
  /** stopped: an entry's abort_on_fail threshold failed, and the entries after it were not run. */
  status: 'running' | 'completed' | 'interrupted' | 'stopped';
  /**
   * Why the campaign stopped early (an abort_on_fail threshold, with its entry); absent otherwise.
   */
  stop_reason?: string;
  resumed_at: string[];
  entries: EntryState[];
}

export function entryName(profilePath: string, name: string | undefined): string {
  return name ?? basename(profilePath).replace(/\.ya?ml$/i, '');
}

/** A fresh state: every entry pending, directories numbered in order (01-…, 02-…). */
export function planCampaign(campaign: Campaign, campaignPath: string, now: Date): CampaignState {
  const base = dirname(resolve(campaignPath));
  const width = Math.max(2, String(campaign.entries.length).length);
  return {
    schema: CAMPAIGN_STATE_SCHEMA,
    name: campaign.name,
    campaign_path: resolve(campaignPath),
    started_at: now.toISOString(),
    finished_at: null,
    status: 'running',
    resumed_at: [],
    entries: campaign.entries.map((e, i) => {
      const name = entryName(e.profile, e.name);
      return {
        index: i + 1,
        name,
        profile: resolve(base, e.profile),
        sweep: e.sweep || e.search !== undefined,
        dir: `${String(i + 1).padStart(width, '0')}-${name}`,
        status: 'pending',
        exit_code: null,
        wall_s: 0,
        attempts: 0,
      };
    }),
  };
}

/**
 * The state to resume with: the saved one, checked against the campaign as it is now (same
 * entries, same profiles, same modes), entries not completed set back to be run. Throws with
 * the first difference.
 */
export function resumeState(saved: CampaignState, fresh: CampaignState, now: Date): CampaignState {
  if (saved.entries.length !== fresh.entries.length) {
    throw new Error(
      `the campaign has ${fresh.entries.length} entries, the directory ${saved.entries.length}: it changed since it was started`,
    );
  }
  for (const [i, e] of fresh.entries.entries()) {
    const s = saved.entries[i];
    if (s.profile !== e.profile || s.sweep !== e.sweep || s.dir !== e.dir) {
      throw new Error(
        `entry ${e.index} is ${e.name} (${e.sweep ? 'sweep' : 'run'}) in the campaign but ${s.name} (${s.sweep ? 'sweep' : 'run'}) in the directory: it changed since it was started`,
      );
    }
  }
  return {
    ...saved,
    status: 'running',
    finished_at: null,
    resumed_at: [...saved.resumed_at, now.toISOString()],
    // A crash leaves an entry `running`: it was interrupted.
    entries: saved.entries.map((e) =>
      e.status === 'running' ? { ...e, status: 'interrupted' } : e,
    ),
  };
}

export function readCampaignState(dir: string): CampaignState | string {
  const path = join(dir, 'campaign.json');
  if (!existsSync(path)) return `${dir}: no campaign.json there`;
  try {
    const s = JSON.parse(readFileSync(path, 'utf8')) as CampaignState;
    if (s.schema !== CAMPAIGN_STATE_SCHEMA || !Array.isArray(s.entries))
      return `${path}: not an rtcap campaign (schema ${JSON.stringify(s.schema)})`;
    return s;
  } catch (e) {
    return `${path}: not readable JSON (${(e as Error).message})`;
  }
}

export function writeCampaignState(dir: string, state: CampaignState): void {
  const path = join(dir, 'campaign.json');
  writeFileSync(`${path}.tmp`, JSON.stringify(state, null, 2) + '\n');
  renameSync(`${path}.tmp`, path);
}
