/** The profile's `thresholds` entries: pass/fail gates on every step (model/thresholds). */
import { z } from 'zod';

/** A threshold: its expression, or k6's object form that can stop the run when it fails. */
export const thresholdEntrySchema = z.union([
  z.string().min(1),
  z
    .object({
      threshold: z.string().min(1).describe('the expression, e.g. "p95_ms < 200"'),
      abort_on_fail: z
        .boolean()
        .default(false)
        .describe(
          'stop the run (or campaign) as soon as a finished step fails it; the result so far is kept and the run exits 99',
        ),
    })
    .strict(),
]);
