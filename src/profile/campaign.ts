/**
 * A campaign: profiles and sweeps (searches) run in order into one directory, whose runs
 * together give the whole capacity table. Validated like a profile (zod, line-numbered errors).
 */
import { z } from 'zod';
import { duration } from './schema/fields.js';
import { sweepOverrideSchema } from './schema/sweep.js';

/** A campaign's or an entry's time budget ("4m", "1h", seconds): longer than 0. */
const budget = duration.refine((ms) => ms > 0, 'must be longer than 0');

export const campaignEntrySchema = z
  .object({
    profile: z.string().min(1).describe('profile YAML, relative to the campaign file'),
    sweep: z
      .boolean()
      .default(false)
      .describe("run it as `rtcap sweep` (the profile's sweep: section) instead of `rtcap run`"),
    search: sweepOverrideSchema
      .optional()
      .describe(
        "a search of this entry (implies sweep: true): these fields over the profile's sweep: section, e.g. { driver: send_rate, start: 500, max: 64000 }",
      ),
    budget: budget
      .optional()
      .describe(
        'wall time this search may take ("4m", attempts together); a search stopped by it reads "≥ X, budget spent" (runs: not allowed, their steps are fixed)',
      ),
    name: z
      .string()
      .regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, ".", "_" and "-" only (it names a directory)')
      .optional()
      .describe("the entry's directory name after its number (default: the profile's file name)"),
    set: z
      .array(z.string())
      .default([])
      .describe("--set overrides for this entry, after the campaign's"),
  })
  .strict()
  .superRefine((e, ctx) => {
    if (e.budget !== undefined && !e.sweep && !e.search) {
      ctx.addIssue({
        code: 'custom',
        path: ['budget'],
        message: "only a search (sweep: true or search:) takes a budget: a run's steps are fixed",
      });
    }
  });

export const campaignAnalysisSchema = z
  .object({
    cpu_safe_pct: z
      .number()
      .positive()
      .max(100)
      .optional()
      .describe("CPU safe line of the table (default: each profile's, 70 %)"),
    mem_safe_pct: z
      .number()
      .positive()
      .max(100)
      .optional()
      .describe('memory safe line of the table (default 85 %)'),
    presence_quota_per_s: z
      .number()
      .positive()
      .optional()
      .describe(
        "presence quota of the docs/METHOD.md §5 members arithmetic (default: the presence run's tenant quota, else 1,000/s)",
      ),
    topic_updates_per_s: z
      .number()
      .positive()
      .optional()
      .describe('updates/s one presence topic must be allowed (default 5)'),
  })
  .strict();

export const campaignSchema = z
  .object({
    name: z
      .string()
      .regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, ".", "_" and "-" only')
      .describe('campaign name (its directory: reports/<time>-<name>/)'),
    description: z.string().optional(),
    set: z.array(z.string()).default([]).describe('--set overrides applied to every entry'),
    budget: budget
      .optional()
      .describe(
        'wall time of the whole campaign ("30m"): each search gets at most what is left, and an entry that would start after it is skipped',
      ),
    analysis: campaignAnalysisSchema.default({}).describe('how the capacity table is built'),
    entries: z.array(campaignEntrySchema).min(1).describe('profiles and sweeps, run in this order'),
  })
  .strict();

export type Campaign = z.output<typeof campaignSchema>;
export type CampaignEntry = z.output<typeof campaignEntrySchema>;
