/** The profile's `slo` section: the thresholds that decide each step's verdict. */
import { z } from 'zod';

export const sloSchema = z
  .object({
    p95_ms: z
      .number()
      .positive()
      .default(200)
      .describe('a step whose first-receive p95 exceeds this is degraded'),
    p99_ms: z.number().positive().optional().describe('optional p99 bound for the same verdict'),
    delivery_rate: z
      .number()
      .min(0)
      .max(1)
      .default(1)
      .describe('a step delivering less than this is broken'),
    join_p95_ms: z
      .number()
      .positive()
      .default(2_000)
      .describe(
        'a step whose joins took longer than this at p95 (scheduled join time → ok reply) is degraded',
      ),
    join_success: z
      .number()
      .min(0)
      .max(1)
      .default(1)
      .describe(
        "share of a step's connections that must join (failed or rejected ones count against it); below it the step is broken. The seed calls 15,998 of 16,000 stable: 0.9995",
      ),
  })
  .strict();
