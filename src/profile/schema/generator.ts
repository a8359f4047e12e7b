/**
 * The profile's `generator` section: the limits past which the load generator, not the server,
 * is the bottleneck (docs/VERDICTS.md, generator-bound), and the emulated client link on every
 * generator connection (src/link, docs/DISTRIBUTED.md).
 */
import { z } from 'zod';
import { duration } from './fields.js';

/** "0.5%", "0.5" or 0.5: a percentage from 0 to 100. */
export const percent = z.union([z.number().min(0).max(100), z.string()]).transform((v, ctx) => {
  const n = typeof v === 'number' ? v : /^\s*\d+(\.\d+)?\s*%?\s*$/.test(v) ? parseFloat(v) : NaN;
  if (!Number.isFinite(n) || n < 0 || n > 100) {
    ctx.addIssue({
      code: 'custom',
      message: `not a percentage from 0 to 100: ${JSON.stringify(v)} (use e.g. 0.5%)`,
    });
    return z.NEVER;
  }
  return n;
});

/** An emulated client link on every generator connection (src/link). */
export const linkSchema = z
  .object({
    delay: duration.describe('one-way delay added in each direction, e.g. 50ms'),
    jitter: duration
      .default(0)
      .describe('spread around the delay, each direction: uniform in delay ± jitter, e.g. 5ms'),
    loss: percent
      .default(0)
      .describe(
        "packets lost in each direction, e.g. 0.5%; needs the kernel's netem qdisc (root on Linux): the userspace relay cannot drop",
      ),
  })
  .strict()
  .superRefine((l, ctx) => {
    if (l.jitter > l.delay)
      ctx.addIssue({
        code: 'custom',
        path: ['jitter'],
        message: `${l.jitter} ms is more than the delay (${l.delay} ms): a chunk cannot arrive before it was sent`,
      });
  });

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
    link: linkSchema
      .optional()
      .describe(
        "an emulated client link on every generator connection, e.g. { delay: 50ms, jitter: 5ms, loss: 0.5% }: netem in a namespace of rtcap's own where the kernel has it (root on Linux), else a userspace relay (delay and jitter only); recorded in result.json generator.link, and each step's extra.link_latency separates the link's known share from the server's",
      ),
  })
  .strict();
