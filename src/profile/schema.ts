/**
 * The profile schema: the single source of the profile's types, defaults and error messages
 * (docs/ARCHITECTURE.md "Code rules"), one file per section under profile/schema/.
 * docs/PROFILE.md is generated from the `.describe()` texts there.
 *
 * Every object is strict: an unknown or mistyped key is an error naming the key and its line.
 */
import { z } from 'zod';
import { analysisSchema } from './schema/analysis.js';
import { generatorLimitsSchema } from './schema/generator.js';
import { loadSchema, reconnectSchema, stepSchema } from './schema/load.js';
import { quotasSchema } from './schema/quotas.js';
import { changesSchema, privateSchema, SCENARIOS } from './schema/scenarios.js';
import { sloSchema } from './schema/slo.js';
import { sweepSchema } from './schema/sweep.js';
import { targetSchema } from './schema/target.js';
import { thresholdEntrySchema } from './schema/thresholds.js';

export const profileSchema = z
  .object({
    name: z.string().min(1).describe('name of the run, used in the run id'),
    description: z.string().optional().describe('free text about the run, copied into the report'),
    scenario: z.enum(SCENARIOS).describe('what to measure; see docs/SCENARIOS.md'),
    target: targetSchema
      .default(() => targetSchema.parse({}))
      .describe('the server under test and how to talk to it'),
    load: loadSchema.describe('the load to offer: join rate, payload and the steps'),
    slo: sloSchema
      .default(() => sloSchema.parse({}))
      .describe("thresholds that decide each step's verdict"),
    generator: generatorLimitsSchema
      .default({ min_offered_ratio: 0.99, max_event_loop_lag_p99_ms: 50, max_cpu_pct: 90 })
      .describe('limits past which the load generator, not the server, is the bottleneck'),
    private: privateSchema
      .default(() => privateSchema.parse({}))
      .describe('private channels (broadcast-private, join-rate): topics and per-user tokens'),
    changes: changesSchema
      .default(() => changesSchema.parse({}))
      .describe('Postgres Changes (postgres-changes, mixed): table, binding and loader'),
    analysis: analysisSchema
      .default(() => analysisSchema.parse({}))
      .describe('safe lines and targets of the capacity table and configuration advice'),
    sweep: sweepSchema
      .optional()
      .describe(
        '`rtcap sweep`: the driver to vary over load.steps.0, explicit values or a search (geometric growth, then bisection to the knee)',
      ),
    thresholds: z
      .array(thresholdEntrySchema)
      .default([])
      .describe(
        'pass/fail gates on every step, e.g. "p95_ms < 200", "delivery_rate >= 0.999", "errors == 0"; narrowed to steps or scenarios ("p95_ms{step:3} < 200", "p95_ms{step:"20k"} < 200", "p95_ms{scenario:presence} < 300") or on a capacity row ("capacity.public_connections >= 18000"); a failure exits 99 (a sweep checks the steps up to its knee). The entry { threshold: "p95_ms < 500", abort_on_fail: true } also stops the run at the first finished step that fails it, keeping the result so far',
      ),
    quotas: quotasSchema
      .optional()
      .describe(
        '`rtcap quotas`: tenant quotas to check below, above and back below the declared value',
      ),
  })
  .strict();

export type Profile = z.output<typeof profileSchema>;
export type ProfileInput = z.input<typeof profileSchema>;
export type Step = z.output<typeof stepSchema>;
export type Target = z.output<typeof targetSchema>;
export type Load = z.output<typeof loadSchema>;
export type Reconnect = z.output<typeof reconnectSchema>;
export type Sweep = z.output<typeof sweepSchema>;
export type Quotas = z.output<typeof quotasSchema>;
export type ThresholdEntry = z.output<typeof thresholdEntrySchema>;
