/**
 * The profile's `sweep` section (`rtcap sweep`): the driver to vary, explicit values or a search
 * (geometric growth, then bisection to the knee), its budget and sample needs, and the recovery
 * probe before each search step; and the same fields as a campaign entry's overrides.
 */
import { z } from 'zod';
import { duration, nonNegInt, positiveInt } from './fields.js';

/**
 * Step fields a sweep may vary; `subscribers` sets the step's connections, `rooms` the topics
 * (connections = rooms × members when members are given), `insert_rate` the rows per second,
 * `room_send_rate` each room's messages per second.
 */
export const SWEEP_DRIVERS = [
  'connections',
  'send_rate',
  'join_rate',
  'payload_bytes',
  'members',
  'update_share',
  'subscribers',
  'rooms',
  'insert_rate',
  'room_send_rate',
] as const;
export type SweepDriver = (typeof SWEEP_DRIVERS)[number];

/**
 * The check before each search step that the server is back to its baseline (recovery/probe):
 * a few round trips on the path the step loads (recovery/paths decides it per scenario), and
 * nothing of an earlier step still arriving at the members.
 */
/** What a probe's round trip is, per scenario, as recovery/paths probePathOf decides it. */
const PROBE_PATHS =
  "a probe is one connection of its own on the path the search loads — broadcast-public, payload-size: a broadcast to itself (self) on the bench topic, beside the step's members; broadcast-private, write-only, mixed: a broadcast to itself on a topic of its own; presence: a track on a presence topic of its own and the diff it causes; postgres-changes: an insert and its change event on a subscription of its own (without target.database_url, a broadcast to itself on a topic of its own); join-rate: one private join of a topic of its own, with a user's token";

export const recoverySchema = z
  .object({
    probe: z
      .boolean()
      .default(true)
      .describe(
        `probe the server before each search step and wait (bounded) until it is back to its baseline, with nothing of an earlier step still arriving at the members: ${PROBE_PATHS}`,
      ),
    messages: positiveInt
      .max(50)
      .default(5)
      .describe(
        `round trips per probe, each started once the previous one came back; ${PROBE_PATHS}`,
      ),
    max_wait: duration
      .default(30_000)
      .describe(
        'longest wait for the server to recover before a step; a step run after it is inconclusive (never the knee) and is run again, at most `reruns` times',
      ),
    reruns: nonNegInt
      .max(10)
      .default(2)
      .describe(
        'a step measured before the server was back to its baseline is run again at most this many times; then the search stops there, its rows a lower bound naming the server not recovering',
      ),
    latency_factor: z
      .number()
      .min(1)
      .default(3)
      .describe(
        'the tolerance: recovered when the probe median latency ≤ baseline median × this + latency_margin_ms, every probe round trip came back and nothing of an earlier step arrived at the members for a second; the baseline is the probe taken right after the first stable step, its members still joined',
      ),
    latency_margin_ms: z
      .number()
      .nonnegative()
      .default(20)
      .describe('added to baseline × latency_factor, so a 1 ms baseline does not demand 3 ms'),
  })
  .strict();

export const sweepFields = {
  driver: z
    .enum(SWEEP_DRIVERS)
    .describe(
      "the step field the sweep varies; every other field comes from load.steps.0 (subscribers: the step's connections)",
    ),
  values: z
    .array(z.number().positive())
    .min(1)
    .optional()
    .describe(
      'explicit driver values, run in this order (no search); without it the sweep searches',
    ),
  start: z
    .number()
    .positive()
    .optional()
    .describe('search: first value (default: the value in load.steps.0)'),
  max: z
    .number()
    .positive()
    .optional()
    .describe(
      'search: the driver never goes above this (required for a search: it bounds the run and sizes the generator)',
    ),
  factor: z
    .number()
    .gt(1)
    .default(2)
    .describe('search: growth factor between steps until the growth stops (geometric growth)'),
  resolution: z
    .number()
    .positive()
    .max(1)
    .default(0.05)
    .describe(
      'search: bisection stops once first not stable − highest stable below it ≤ resolution × first not stable',
    ),
  stop_after_broken: positiveInt
    .default(2)
    .describe(
      'K: an explicit list stops after this many consecutive broken steps (a search stops growing at its first step that is not stable)',
    ),
  generator_bound_retries: nonNegInt
    .default(1)
    .describe(
      'a generator-bound step is run again this many times before the sweep stops on it (the generator, not the server, is then the limit)',
    ),
  max_steps: positiveInt
    .default(20)
    .describe('at most this many steps in all (a resumed sweep counts the steps already done)'),
  budget: duration
    .refine((ms) => ms > 0, 'must be longer than 0')
    .optional()
    .describe(
      'wall time the sweep may take ("4m"); no step starts that would end past it, and a search stopped so reads "≥ X, budget spent"',
    ),
  min_samples: nonNegInt
    .default(1000)
    .describe(
      'search: the percentile a step is judged on (first-receipt p95, join p95) must rest on at least this many samples; a step short of it is run again longer (up to max_duration) unless the samples it lacks cannot change its verdict, and the steps after it run as long as their samples need; 0: never',
    ),
  max_duration: duration
    .optional()
    .describe(
      'search: the longest a step may be lengthened to for min_samples (default: 4 × load.steps.0 duration)',
    ),
  fresh_pause: duration
    .default(2000)
    .describe(
      "a step after one whose connections failed or dropped starts from fresh connections: once the old ones are closed on both sides (and the server's open files stopped falling, where they are read), the wait before its ramp, for a server that lets go of a user (its tenant's count of users) after the socket",
    ),
  recovery: recoverySchema
    .default(() => recoverySchema.parse({}))
    .describe('search: before each step, wait until the server is back to its baseline'),
};

/** A sweep's fields with their limits and no defaults: a campaign entry's `search:` overrides. */
export const sweepOverrideSchema = z
  .object({
    ...Object.fromEntries(
      Object.entries(sweepFields).map(([k, v]) => [k, unwrapDefault(v).optional()]),
    ),
  } as {
    [K in keyof typeof sweepFields]: z.ZodOptional<
      z.ZodType<z.output<(typeof sweepFields)[K]>, z.input<(typeof sweepFields)[K]>>
    >;
  })
  .strict();

function unwrapDefault(t: z.ZodType): z.ZodType {
  return t instanceof z.ZodDefault ? (t.unwrap() as z.ZodType) : t;
}

export const sweepSchema = z
  .object(sweepFields)
  .strict()
  .superRefine((s, ctx) => {
    if (!s.values && s.max === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['max'],
        message: 'required for a search (or list explicit `values`)',
      });
    if (s.start !== undefined && s.max !== undefined && s.start > s.max)
      ctx.addIssue({
        code: 'custom',
        path: ['start'],
        message: `start ${s.start} is above max ${s.max}`,
      });
  });
