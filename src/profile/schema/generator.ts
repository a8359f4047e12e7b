/**
 * The profile's `generator` section: the limits past which the load generator, not the server,
 * is the bottleneck (docs/VERDICTS.md, generator-bound).
 */
import { z } from 'zod';

export const generatorLimitsSchema = z
  .object({
    min_offered_ratio: z
      .number()
      .min(0)
      .max(1)
      .default(0.99)
      .describe('below this share of the scheduled load the step is generator-bound'),
    max_event_loop_lag_p99_ms: z
      .number()
      .positive()
      .default(50)
      .describe('event-loop lag p99 above this makes the step generator-bound'),
    max_cpu_pct: z
      .number()
      .positive()
      .default(90)
      .describe('generator CPU (one core = 100 %) above this makes the step generator-bound'),
  })
  .strict();
