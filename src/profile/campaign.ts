/**
 * A campaign (issue 9 §1): profiles and sweeps run in order into one directory, whose runs
 * together give the whole capacity table. Validated like a profile (zod, line-numbered errors).
 */
import { z } from 'zod';

export const campaignEntrySchema = z
  .object({
    profile: z.string().min(1).describe('profile YAML, relative to the campaign file'),
    sweep: z.boolean().default(false).describe('run it as `rtcap sweep` (the profile\'s sweep: section) instead of `rtcap run`'),
    name: z
      .string()
      .regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, ".", "_" and "-" only (it names a directory)')
      .optional()
      .describe('the entry\'s directory name after its number (default: the profile\'s file name)'),
    set: z.array(z.string()).default([]).describe('--set overrides for this entry, after the campaign\'s'),
  })
  .strict();

export const campaignAnalysisSchema = z
  .object({
    cpu_safe_pct: z.number().positive().max(100).optional().describe('CPU safe line of the table (default: each profile\'s, 70 %)'),
    mem_safe_pct: z.number().positive().max(100).optional().describe('memory safe line of the table (default 85 %)'),
    presence_quota_per_s: z.number().positive().optional().describe('presence quota of the §5 members arithmetic (default: the presence run\'s tenant quota, else 1,000/s)'),
    topic_updates_per_s: z.number().positive().optional().describe('updates/s one presence topic must be allowed (default 5)'),
  })
  .strict();

export const campaignSchema = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, ".", "_" and "-" only').describe('campaign name (its directory: reports/<time>-<name>/)'),
    description: z.string().optional(),
    set: z.array(z.string()).default([]).describe('--set overrides applied to every entry'),
    analysis: campaignAnalysisSchema.default({}).describe('how the capacity table is built'),
    entries: z.array(campaignEntrySchema).min(1).describe('profiles and sweeps, run in this order'),
  })
  .strict();

export type Campaign = z.output<typeof campaignSchema>;
export type CampaignEntry = z.output<typeof campaignEntrySchema>;
