/** The profile's `analysis` section: safe lines and targets of the capacity table and advice. */
import { z } from 'zod';

export const analysisSchema = z
  .object({
    cpu_safe_pct: z
      .number()
      .positive()
      .max(100)
      .default(70)
      .describe('server CPU safe line of the capacity table (seed 002: 70 %)'),
    mem_safe_pct: z
      .number()
      .positive()
      .max(100)
      .default(85)
      .describe('server memory safe line of the capacity table'),
    wanted_join_rate_per_s: z
      .number()
      .positive()
      .optional()
      .describe('join rate to size db_pool for in the configuration advice'),
    join_headroom: z
      .number()
      .positive()
      .max(1)
      .default(0.5)
      .describe(
        'share of the measured join ceiling recommended as the red line (seed 002: 60 of 125/s)',
      ),
    presence_quota_per_s: z
      .number()
      .positive()
      .optional()
      .describe(
        "the tenant's max_presence_events_per_second, for the quota arithmetic of presence steps (docs/METHOD.md §5); default: read from target.server.config when rtcap starts the built-in server",
      ),
  })
  .strict();
